package main

import (
	"fmt"
	"strings"

	"github.com/keyplan/keyplan/patterns"
)

// replicaFlags collects plan's --replica specs (patterns.ParseReplica),
// each region once.
type replicaFlags []string

func (r *replicaFlags) String() string { return strings.Join(*r, " ") }

func (r *replicaFlags) Set(v string) error {
	rr, err := patterns.ParseReplica(v, nil)
	if err != nil {
		return err
	}
	for _, prev := range *r {
		if p, _, _ := strings.Cut(prev, ":"); p == rr.Region {
			return fmt.Errorf("%q: %s is given twice", v, rr.Region)
		}
	}
	*r = append(*r, v)
	return nil
}

// reads is what each replica provisions, checked against the indexes of
// the estimate.
func (r replicaFlags) reads(c *patterns.Cost) ([]patterns.ReplicaReads, error) {
	var names []string
	for _, l := range c.Indexes {
		names = append(names, l.Name)
	}
	var out []patterns.ReplicaReads
	for _, v := range r {
		rr, err := patterns.ParseReplica(v, names)
		if err != nil {
			return nil, err
		}
		out = append(out, rr)
	}
	return out, nil
}
