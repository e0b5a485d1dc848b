// Package test holds assertion tests on the templates the example app
// synthesizes. One app is synthesized per test run and shared by every
// test (a synth costs seconds: Node loads aws-cdk-lib once per process).
package test
