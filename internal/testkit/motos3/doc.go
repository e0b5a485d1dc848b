// Package motos3 starts moto's S3 (an S3 API implementation by others:
// the Python package moto, in server mode) for the tests that run
// keyplan's object path (values kept in S3, store: s3) against
// something keyplan did not write.
//
// moto takes about ten seconds to start on a busy machine, so those tests
// run in make test-s3 (which sets $KEYPLAN_S3=moto), not in make test;
// elsewhere, and where moto is not installed, Start skips the test,
// saying why.
package motos3
