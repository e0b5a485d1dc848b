package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/keyplan/keyplan/patterns"
)

// replicaFlags collects plan's --replica REGION[:table=RCU,GSI1=RCU...].
type replicaFlags []string

func (r *replicaFlags) String() string { return strings.Join(*r, " ") }

func (r *replicaFlags) Set(v string) error {
	region, _, _ := strings.Cut(v, ":")
	if !regionName.MatchString(region) {
		return fmt.Errorf("%q: expected REGION[:table=RCU,GSI1=RCU...], the region like eu-west-1", v)
	}
	for _, prev := range *r {
		if p, _, _ := strings.Cut(prev, ":"); p == region {
			return fmt.Errorf("%q: %s is given twice", v, region)
		}
	}
	*r = append(*r, v)
	return nil
}

var regionName = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]+$`)

// reads turns the flags into what each replica provisions: the read
// capacity given per index ("table" or a GSI of the design), the
// primary's for the others.
func (r replicaFlags) reads(c *patterns.Cost) ([]patterns.ReplicaReads, error) {
	var names []string
	for _, l := range c.Indexes {
		names = append(names, l.Name)
	}
	var out []patterns.ReplicaReads
	for _, v := range r {
		region, spec, _ := strings.Cut(v, ":")
		rr := patterns.ReplicaReads{Region: region, Read: map[string]float64{}}
		if spec != "" {
			for part := range strings.SplitSeq(spec, ",") {
				name, units, ok := strings.Cut(part, "=")
				n, err := strconv.ParseFloat(units, 64)
				switch {
				case !ok || err != nil || n < 1 || n > 40000 || n != float64(int64(n)):
					return nil, fmt.Errorf("%q: %q: expected INDEX=RCU, RCU a whole number from 1 to 40000", v, part)
				case !slices.Contains(names, name):
					return nil, fmt.Errorf("%q: %q: the design has no index %s (it has %s)", v, part, name, strings.Join(names, ", "))
				}
				if _, dup := rr.Read[name]; dup {
					return nil, fmt.Errorf("%q: %s is given twice", v, name)
				}
				rr.Read[name] = n
			}
		}
		out = append(out, rr)
	}
	return out, nil
}
