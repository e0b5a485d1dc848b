package server

// UpdateTable's index changes and billing switches, as DynamoDB makes
// them: a GSI created by UpdateTable is CREATING and Backfilling for the
// engine's index activation delay (none by default: ACTIVE at once, its
// backfill done before UpdateTable returns), a deleted one DELETING for
// as long; one index change at a time; a switch to on-demand at most
// four times in 24 hours, back to provisioned with the throughput of the
// table and of every GSI.

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/keyplan/keyplan/internal/engine/minidyn/core"
)

// PayPerRequestSwitches is how many times a table may switch to
// on-demand (PAY_PER_REQUEST) within PayPerRequestWindow.
const (
	PayPerRequestSwitches = 4
	PayPerRequestWindow   = 24 * time.Hour
)

// deletingIndex is a GSI UpdateTable deleted, described as DELETING
// until the activation delay has passed.
type deletingIndex struct {
	desc gsiJSON
	at   time.Time
}

// indexChange is what a request's GlobalSecondaryIndexUpdates create
// and delete ("" for none), and the deleted index as it was described.
type indexChange struct {
	created, deleted string
	gone             gsiJSON
}

func limitExceeded(msg string) error { return &apiError{Code: "LimitExceededException", Message: msg} }

const oneIndexChange = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"

// indexBusy reports whether an index of the table is still being created
// or deleted.
func (c *Client) indexBusy(m *tableMeta) bool {
	now := c.now()

	for _, at := range m.gsiCreated {
		if now.Before(at.Add(c.indexActivationDelay)) {
			return true
		}
	}

	for _, d := range m.gsiDeleting {
		if now.Before(d.at.Add(c.indexActivationDelay)) {
			return true
		}
	}

	return false
}

// indexStatus is a GSI's IndexStatus and, while UpdateTable's backfill
// runs, Backfilling (DynamoDB leaves it out once the index is ACTIVE).
func (c *Client) indexStatus(m *tableMeta, name string) (string, *bool) {
	if at, ok := m.gsiCreated[name]; ok && c.now().Before(at.Add(c.indexActivationDelay)) {
		return "CREATING", aws.Bool(true)
	}

	return "ACTIVE", nil
}

// checkReadable refuses a read of a GSI still backfilling.
func (c *Client) checkReadable(table *core.Table, index string) error {
	if index == "" {
		return nil
	}

	if status, _ := c.indexStatus(c.meta[table.Name], index); status == "CREATING" {
		return validation("Cannot read from backfilling global secondary index: %s", index)
	}

	return nil
}

// checkIndexUpdates checks a request's GlobalSecondaryIndexUpdates as a
// whole before any applies.
func (c *Client) checkIndexUpdates(table *core.Table, m *tableMeta, in *UpdateTableInput) (indexChange, error) {
	var ch indexChange

	changes := 0

	for _, u := range in.GlobalSecondaryIndexUpdates {
		n := 0

		for _, given := range []bool{u.Create != nil, u.Update != nil, u.Delete != nil} {
			if given {
				n++
			}
		}

		if n != 1 {
			return ch, validation("One or more parameter values were invalid: a GlobalSecondaryIndexUpdate must hold exactly one of Create, Update and Delete")
		}

		switch {
		case u.Create != nil:
			changes++
			ch.created = aws.ToString(u.Create.IndexName)
		case u.Delete != nil:
			changes++
			ch.deleted = aws.ToString(u.Delete.IndexName)
		}
	}

	if changes > 1 {
		return ch, limitExceeded(oneIndexChange)
	}

	if changes == 1 && c.indexBusy(m) {
		return ch, limitExceeded(oneIndexChange)
	}

	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Delete != nil:
			if !table.IsGlobal(ch.deleted) {
				return ch, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Index: " + ch.deleted + " not found"}
			}
		case u.Update != nil:
			name := aws.ToString(u.Update.IndexName)
			if !table.IsGlobal(name) {
				return ch, &apiError{Code: "ResourceNotFoundException", Message: "Requested resource not found: Index: " + name + " not found"}
			}
		case u.Create != nil:
			if billingOf(m, in) == ddbtypes.BillingModePayPerRequest {
				if u.Create.ProvisionedThroughput != nil {
					return ch, validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", ch.created)
				}
			} else if u.Create.ProvisionedThroughput == nil {
				return ch, validation("One or more parameter values were invalid: ProvisionedThroughput should be specified for index: %s when BillingMode is PROVISIONED", ch.created)
			} else if err := checkThroughput("globalSecondaryIndexUpdates.1.member.create.provisionedThroughput", u.Create.ProvisionedThroughput); err != nil {
				return ch, err
			}
		}
	}

	return ch, nil
}

// applyIndexUpdates creates, deletes and updates the GSIs a checked
// request names. A creation the core refuses changes nothing.
func (c *Client) applyIndexUpdates(table *core.Table, m *tableMeta, in *UpdateTableInput, ch *indexChange) error {
	now := c.now()

	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Create != nil:
			d := core.IndexDefinition{Name: ch.created, KeySchema: toCoreKeySchema(u.Create.KeySchema), Projection: toCoreProjection(u.Create.Projection)}
			if err := table.AddGlobalIndex(d, toCoreAttrs(in.AttributeDefinitions)); err != nil {
				return apiErr(err)
			}

			m.gsiThroughput[d.Name] = u.Create.ProvisionedThroughput
			m.gsiCreated[d.Name] = now
			m.mergeDefinitions(in.AttributeDefinitions)
		case u.Delete != nil:
			var snapshot gsiJSON

			for _, g := range c.describe(table, "ACTIVE").GlobalSecondaryIndexes {
				if g.IndexName == ch.deleted {
					snapshot = g
				}
			}

			if err := table.DeleteGlobalIndex(ch.deleted); err != nil {
				return apiErr(err)
			}

			snapshot.IndexStatus, snapshot.Backfilling = "DELETING", nil
			ch.gone = snapshot
			m.gsiDeleting = append(m.gsiDeleting, deletingIndex{desc: snapshot, at: now})
			delete(m.gsiThroughput, ch.deleted)
			delete(m.gsiCreated, ch.deleted)
		case u.Update != nil:
			m.gsiThroughput[aws.ToString(u.Update.IndexName)] = u.Update.ProvisionedThroughput
		}
	}

	return nil
}

// deletingIndexes are the GSIs still being deleted, as DELETING.
func (c *Client) deletingIndexes(m *tableMeta) []gsiJSON {
	now := c.now()
	kept := m.gsiDeleting[:0]

	var out []gsiJSON

	for _, d := range m.gsiDeleting {
		if now.Before(d.at.Add(c.indexActivationDelay)) {
			kept = append(kept, d)
			out = append(out, d.desc)
		}
	}

	m.gsiDeleting = kept

	return out
}

// billingOf is the billing mode a table will have after in.
func billingOf(m *tableMeta, in *UpdateTableInput) ddbtypes.BillingMode {
	if in.BillingMode != "" {
		return in.BillingMode
	}

	if m.billing == "" {
		return ddbtypes.BillingModeProvisioned
	}

	return m.billing
}

func checkThroughput(where string, t *ddbtypes.ProvisionedThroughput) error {
	for _, u := range []struct {
		name string
		v    *int64
	}{{"readCapacityUnits", t.ReadCapacityUnits}, {"writeCapacityUnits", t.WriteCapacityUnits}} {
		if u.v == nil {
			return validation("1 validation error detected: Value null at '%s.%s' failed to satisfy constraint: Member must not be null", where, u.name)
		}

		if *u.v < 1 {
			return validation("1 validation error detected: Value '%d' at '%s.%s' failed to satisfy constraint: Member must have value greater than or equal to 1", *u.v, where, u.name)
		}
	}

	return nil
}

// billingUpdate is a checked change of billing mode and throughput.
type billingUpdate struct {
	mode       ddbtypes.BillingMode
	throughput *ddbtypes.ProvisionedThroughput
	at         time.Time
	switched   bool
}

func (b billingUpdate) apply(m *tableMeta) {
	if b.mode != "" {
		if b.mode == ddbtypes.BillingModePayPerRequest && b.switched {
			m.payPerRequestSwitches = append(m.payPerRequestSwitches, b.at)
			m.payPerRequestSince = b.at
		}

		m.billing = b.mode
	}

	if b.mode == ddbtypes.BillingModePayPerRequest && b.switched {
		m.throughput = nil
	}

	if b.throughput != nil {
		m.throughput = b.throughput
	}
}

// checkBillingUpdate checks a request's BillingMode and
// ProvisionedThroughput against the table's.
func (c *Client) checkBillingUpdate(table *core.Table, m *tableMeta, in *UpdateTableInput) (billingUpdate, error) {
	b := billingUpdate{mode: in.BillingMode, throughput: in.ProvisionedThroughput, at: c.now()}
	was := billingOf(m, &UpdateTableInput{})
	now := billingOf(m, in)
	b.switched = in.BillingMode != "" && now != was

	switch now {
	case ddbtypes.BillingModePayPerRequest:
		if in.ProvisionedThroughput != nil {
			return b, validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}

		for _, u := range in.GlobalSecondaryIndexUpdates {
			if u.Update != nil && u.Update.ProvisionedThroughput != nil {
				return b, validation("One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", aws.ToString(u.Update.IndexName))
			}
		}

		if b.switched {
			recent := 0

			for _, at := range m.payPerRequestSwitches {
				if b.at.Sub(at) < PayPerRequestWindow {
					recent++
				}
			}

			if recent >= PayPerRequestSwitches {
				return b, limitExceeded("Subscriber limit exceeded: a table can be switched to PAY_PER_REQUEST at most 4 times in 24 hours")
			}
		}
	case ddbtypes.BillingModeProvisioned:
		if in.ProvisionedThroughput != nil {
			if err := checkThroughput("provisionedThroughput", in.ProvisionedThroughput); err != nil {
				return b, err
			}
		}

		if !b.switched {
			break
		}

		if in.ProvisionedThroughput == nil {
			return b, validation("One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
		}

		given := map[string]bool{}

		for _, u := range in.GlobalSecondaryIndexUpdates {
			if u.Update != nil && u.Update.ProvisionedThroughput != nil {
				given[aws.ToString(u.Update.IndexName)] = true
			}
		}

		gsis, _ := table.IndexDefinitions()

		for _, d := range gsis {
			if d.Name != in.deletedIndex() && !given[d.Name] {
				return b, validation("One or more parameter values were invalid: ProvisionedThroughput must be specified for index: %s", d.Name)
			}
		}
	default:
		return b, validation("1 validation error detected: Value '%s' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]", in.BillingMode)
	}

	return b, nil
}

// deletedIndex is the GSI the request deletes ("" for none).
func (in *UpdateTableInput) deletedIndex() string {
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Delete != nil {
			return aws.ToString(u.Delete.IndexName)
		}
	}

	return ""
}
