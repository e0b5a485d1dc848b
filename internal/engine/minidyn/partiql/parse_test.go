package partiql

import "testing"

func TestParse(t *testing.T) {
	for s, kind := range map[string]string{
		`SELECT * FROM "t"."i" WHERE p = ? AND c BETWEEN 1 AND 2 ORDER BY c DESC`:                                                Select,
		`select a.b[0], "c d" from t where begins_with(x, 'a') or not y is missing`:                                              Select,
		`INSERT INTO t VALUE {'p': 'a', 'n': -1.5e3, 's': <<'x','y'>>, 'l': [1, true, null], 'm': {'k': ?}}`:                     Insert,
		`UPDATE t SET a = a + 1, b = list_append(b, [1]) SET c = set_add(c, <<'z'>>) REMOVE d WHERE p = 'x' RETURNING ALL NEW *`: Update,
		`DELETE FROM t WHERE p = 'it''s' RETURNING ALL OLD *;`:                                                                   Delete,
	} {
		st, err := Parse(s)
		if err != nil || st.Kind != kind {
			t.Errorf("%s: %v %v", s, st, err)
		}
	}

	for _, s := range []string{"SELEC * FROM t", "SELECT * FROM", "SELECT * FROM t WHERE", "INSERT INTO t VALUE {'p' 'a'}", "UPDATE t WHERE p = 1", "SELECT * FROM t extra", "DELETE FROM t", "SELECT * FROM t WHERE a = 'x"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("%s: parsed", s)
		}
	}

	st, _ := Parse("SELECT * FROM t WHERE a = ? AND b IN [?, ?]")
	if st.Params != 3 {
		t.Errorf("params: %d", st.Params)
	}
}
