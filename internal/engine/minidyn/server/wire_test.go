package server

import "testing"

// What DynamoDB compresses a response with, by the Accept-Encoding it is
// sent: the cases ScyllaDB's suite records from DynamoDB itself
// (test_compressed_response.py, test_accept_encoding_header), which the
// suite cannot run here (it needs a newer botocore than Debian's and,
// off AWS, Scylla's configuration table).
func TestResponseEncodingAsDynamoDBReadsIt(t *testing.T) {
	for header, want := range map[string]string{
		"identity": "", "": "", "br": "", "zstd": "", "compress": "", "x-gzip": "",
		"gzip": "gzip", "deflate": "deflate",
		"gzip, deflate": "gzip", "br, identity, deflate, gzip": "deflate", "GZIP, identity": "gzip", "dog, gzip ,, cat": "gzip",
		"gzip;q=0.8, deflate;q=0.5": "gzip", "br, gzip;q=0, deflate; q = 0.5 , identity;q=0": "deflate",
		"*": "gzip", "*, deflate;q=0.5": "gzip", "*, deflate": "deflate", "*, identity": "gzip", "*, gzip;q=0.5": "deflate",
		"gzip ;q=0": "", "identity;q=0": "", "*;q=0": "", "*;q=0.5,identity": "gzip", "gzip;q=0.5,identity;q=0.8": "gzip",
		"br;q=0.8,identity;q=0.5,*;q=0": "",
		`"gzip"`:                        "", "gzip br": "", "gzip:q=1": "",
		"deflate;q=0.5, gzip;q=31": "gzip", "gzip;q=31,deflate;q=51": "gzip", "deflate;q=0.5, gzip;q=0.2": "deflate",
		"deflate;q=0.5, gzip;q=1;q=0.2": "gzip", "deflate;q=0.5,gzip;q=0.": "deflate", "deflate;q=0.5,gzip;q=0.x": "gzip",
		"deflate;q=0.5,gzip;q=0. x": "gzip", "deflate;q=-0.5,gzip;q=0.2": "gzip", "gzip;q= 0;q=1": "", "gzip;q =0;q=1": "gzip",
		"gzip; q=0;q=1": "", "gzip;nq=0;q=1": "", "gzip;q=0, gzip;q=1, gzip;q=0": "gzip", "br,identity;q=0.5,gzip;q=0.0001": "gzip",
		"  gzip,  deflate,    br  ": "gzip",
	} {
		if got := responseEncoding(header); got != want {
			t.Errorf("Accept-Encoding %q: %q, want %q", header, got, want)
		}
	}
}
