package patterns

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/keyplan/keyplan/patterns/model"
)

// regionName is an AWS region's name: eu-west-1, us-gov-east-1.
var regionName = model.RegionName

// MaxReplicaRCU is the most read capacity a replica's index may be given
// in a replica spec (DynamoDB's default per-table quota).
const MaxReplicaRCU = 40000

// ParseReplica reads a replica spec, REGION[:INDEX=RCU,...] (keyplan plan
// --replica eu-west-1:table=2,GSI1=3): the region of a global table's
// replica and the read capacity it provisions per index, a whole number
// from 1 to MaxReplicaRCU (Cost.Global sizes the indexes it does not name
// like the primary's). With indexes (the design's: "table" and its GSIs),
// an index not among them is refused.
func ParseReplica(spec string, indexes []string) (ReplicaReads, error) {
	region, parts, _ := strings.Cut(spec, ":")
	rr := ReplicaReads{Region: region, Read: map[string]float64{}}
	if !regionName.MatchString(region) {
		return rr, fmt.Errorf("%q: expected REGION[:table=RCU,GSI1=RCU...], the region like eu-west-1", spec)
	}
	if parts == "" {
		return rr, nil
	}
	for part := range strings.SplitSeq(parts, ",") {
		name, units, ok := strings.Cut(part, "=")
		n, err := strconv.ParseFloat(units, 64)
		switch {
		case !ok || err != nil || n < 1 || n > MaxReplicaRCU || n != float64(int64(n)):
			return rr, fmt.Errorf("%q: %q: expected INDEX=RCU, RCU a whole number from 1 to %d", spec, part, MaxReplicaRCU)
		case indexes != nil && !slices.Contains(indexes, name):
			return rr, fmt.Errorf("%q: %q: the design has no index %s (it has %s)", spec, part, name, strings.Join(indexes, ", "))
		}
		if _, dup := rr.Read[name]; dup {
			return rr, fmt.Errorf("%q: %s is given twice", spec, name)
		}
		rr.Read[name] = n
	}
	return rr, nil
}

// ParseReplicas reads the replica specs of a global table (ParseReplica,
// keyplan plan's --replica flags), each region once. With c, a design's
// estimate, an index the design does not have is refused; with nil only
// the specs themselves are checked.
func ParseReplicas(specs []string, c *Cost) ([]ReplicaReads, error) {
	var names []string
	if c != nil {
		for _, l := range c.Indexes {
			names = append(names, l.Name)
		}
	}
	seen := map[string]bool{}
	var out []ReplicaReads
	for _, spec := range specs {
		rr, err := ParseReplica(spec, names)
		if err != nil {
			return nil, err
		}
		if seen[rr.Region] {
			return nil, fmt.Errorf("%q: %s is given twice", spec, rr.Region)
		}
		seen[rr.Region] = true
		out = append(out, rr)
	}
	return out, nil
}

// Replicas are the replica specs of a global table, a flag.Value (keyplan
// plan --replica, repeatable): each spec is checked as it is set
// (ParseReplicas), against the design's indexes when applied.
type Replicas []string

func (r *Replicas) String() string { return strings.Join(*r, " ") }

// Set adds a spec, checked with those before it (each region once).
func (r *Replicas) Set(spec string) error {
	if _, err := ParseReplicas(append(*r, spec), nil); err != nil {
		return err
	}
	*r = append(*r, spec)
	return nil
}

// Apply adds every region to d's estimate (Cost.AllRegions); nothing
// when there are no specs or no estimate.
func (r Replicas) Apply(d *Design) error {
	if len(r) == 0 || d.Cost == nil {
		return nil
	}
	reads, err := ParseReplicas(r, d.Cost)
	if err != nil {
		return err
	}
	d.Cost.AllRegions = d.Cost.Global(reads)
	return nil
}
