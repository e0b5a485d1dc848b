package server

import "encoding/json"

// AttributeValue is a concrete representation of DynamoDB's AttributeValue
// that works with standard json encoding/decoding.
type AttributeValue struct {
	B    []byte                     `json:"B,omitempty"`
	BOOL *bool                      `json:"BOOL,omitempty"`
	BS   [][]byte                   `json:"BS,omitempty"`
	L    []*AttributeValue          `json:"L,omitempty"`
	M    map[string]*AttributeValue `json:"M,omitempty"`
	N    *string                    `json:"N,omitempty"`
	NS   []*string                  `json:"NS,omitempty"`
	NULL *bool                      `json:"NULL,omitempty"`
	S    *string                    `json:"S,omitempty"`
	SS   []*string                  `json:"SS,omitempty"`
}

// MarshalJSON writes the one type the value holds, even when it is empty
// (an empty list, map or binary keeps its type, as DynamoDB sends it).
func (a AttributeValue) MarshalJSON() ([]byte, error) {
	var v any

	switch {
	case a.S != nil:
		v = struct {
			S string `json:"S"`
		}{*a.S}
	case a.N != nil:
		v = struct {
			N string `json:"N"`
		}{*a.N}
	case a.B != nil:
		v = struct {
			B []byte `json:"B"`
		}{a.B}
	case a.BOOL != nil:
		v = struct {
			BOOL bool `json:"BOOL"`
		}{*a.BOOL}
	case a.NULL != nil:
		v = struct {
			NULL bool `json:"NULL"`
		}{*a.NULL}
	case a.SS != nil:
		v = struct {
			SS []*string `json:"SS"`
		}{a.SS}
	case a.NS != nil:
		v = struct {
			NS []*string `json:"NS"`
		}{a.NS}
	case a.BS != nil:
		v = struct {
			BS [][]byte `json:"BS"`
		}{a.BS}
	case a.L != nil:
		v = struct {
			L []*AttributeValue `json:"L"`
		}{a.L}
	case a.M != nil:
		v = struct {
			M map[string]*AttributeValue `json:"M"`
		}{a.M}
	default:
		v = struct{}{}
	}

	return json.Marshal(v)
}
