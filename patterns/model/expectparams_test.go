package model

import (
	"strings"
	"testing"
)

// An expectation's params are the pattern's where attributes: a name it
// does not take is refused by check, with the name it likely meant (the
// runtime refused it, so validate failed on a model check passed).
func TestExpectationParams(t *testing.T) {
	src := `table: Shop
entities:
  Event:
    id: [eventId]
    attributes: {eventId: {type: string, maxLength: 40}, venueId: {type: string, maxLength: 40}, city: {type: string, maxLength: 40}}
patterns:
  EventsAtVenue: {query: Event, where: [venueId]}
examples:
  items:
    e1: {Event: {eventId: e1, venueId: v1, city: Oslo}}
  expect:
    - {pattern: EventsAtVenue, params: {venue: v1}, items: [e1]}
    - {pattern: EventsAtVenue, params: {venueId: v1, city: Oslo}, items: [e1]}
    - {pattern: EventsAtVenue, params: {venueId: v1}, items: [e1]}
`
	_, err := Parse("model.yaml", []byte(src))
	if err == nil {
		t.Fatal("a typo and an extra parameter: no error")
	}
	for _, want := range []string{
		`model.yaml:12:7: examples.expect[0].params.venueId: missing; pattern EventsAtVenue needs venueId`,
		`model.yaml:12:7: examples.expect[0].params: unknown parameter of EventsAtVenue "venue"; expected one of: venueId (did you mean "venueId"?)`,
		`model.yaml:13:7: examples.expect[1].params: unknown parameter of EventsAtVenue "city"; expected one of: venueId`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error:\n%v\nwant %s", err, want)
		}
	}
	if strings.Contains(err.Error(), "expect[2]") {
		t.Errorf("the right expectation refused: %v", err)
	}
}
