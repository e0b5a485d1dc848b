package patterns

import (
	"strings"
	"testing"

	"github.com/keyplan/keyplan/patterns/model"
)

func TestParseReplica(t *testing.T) {
	indexes := []string{model.BaseIndex, "GSI1"}
	good := map[string]ReplicaReads{
		"eu-west-1":                 {Region: "eu-west-1", Read: map[string]float64{}},
		"eu-west-1:":                {Region: "eu-west-1", Read: map[string]float64{}},
		"us-gov-east-1:table=2":     {Region: "us-gov-east-1", Read: map[string]float64{model.BaseIndex: 2}},
		"ap-south-1:table=1,GSI1=3": {Region: "ap-south-1", Read: map[string]float64{model.BaseIndex: 1, "GSI1": 3}},
		"eu-west-1:GSI1=40000":      {Region: "eu-west-1", Read: map[string]float64{"GSI1": 40000}},
	}
	for spec, want := range good {
		got, err := ParseReplica(spec, indexes)
		if err != nil || got.Region != want.Region || len(got.Read) != len(want.Read) {
			t.Errorf("ParseReplica(%q) = %+v, %v; want %+v", spec, got, err, want)
			continue
		}
		for k, v := range want.Read {
			if got.Read[k] != v {
				t.Errorf("ParseReplica(%q).Read[%s] = %g, want %g", spec, k, got.Read[k], v)
			}
		}
	}
	bad := map[string]string{
		"Mars":                      "the region like eu-west-1",
		"eu-west-1:table=0.5":       "RCU a whole number from 1 to 40000",
		"eu-west-1:table=0":         "RCU a whole number from 1 to 40000",
		"eu-west-1:table=40001":     "RCU a whole number from 1 to 40000",
		"eu-west-1:table=NaN":       "RCU a whole number",
		"eu-west-1:table":           "expected INDEX=RCU",
		"eu-west-1:GSI9=2":          "the design has no index GSI9 (it has table, GSI1)",
		"eu-west-1:table=2,table=3": "table is given twice",
	}
	for spec, want := range bad {
		if _, err := ParseReplica(spec, indexes); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseReplica(%q) = %v; want an error with %q", spec, err, want)
		}
	}
	if _, err := ParseReplica("eu-west-1:GSI9=2", nil); err != nil {
		t.Errorf("without indexes, any index name is taken: %v", err)
	}
}

// ParseReplicas reads several specs, each region once, and checks the
// indexes against the estimate when there is one.
func TestParseReplicas(t *testing.T) {
	c := &Cost{Indexes: []*IndexLoad{{Name: model.BaseIndex}, {Name: "GSI1"}}}
	got, err := ParseReplicas([]string{"eu-west-1:table=3", "ap-south-1"}, c)
	if err != nil || len(got) != 2 || got[0].Region != "eu-west-1" || got[0].Read[model.BaseIndex] != 3 || got[1].Region != "ap-south-1" {
		t.Errorf("ParseReplicas = %+v, %v", got, err)
	}
	for _, tt := range []struct {
		specs []string
		c     *Cost
		want  string
	}{
		{[]string{"eu-west-1", "eu-west-1:table=2"}, nil, `"eu-west-1:table=2": eu-west-1 is given twice`},
		{[]string{"eu-west-1:GSI9=2"}, c, "the design has no index GSI9 (it has table, GSI1)"},
		{[]string{"Mars"}, nil, "the region like eu-west-1"},
	} {
		if _, err := ParseReplicas(tt.specs, tt.c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseReplicas(%q) = %v; want %q", tt.specs, err, tt.want)
		}
	}
	if _, err := ParseReplicas([]string{"eu-west-1:GSI9=2"}, nil); err != nil {
		t.Errorf("without an estimate, any index name is taken: %v", err)
	}
}
