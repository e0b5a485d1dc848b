package test

import (
	"os"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/keyplan/keyplan/stacks"
)

// BenchmarkSynthExampleApp is the wall time of synthesizing the example
// app (both stacks, cdk-nag and the GlobalTable rule pack included), in a
// process whose Node runtime is already up.
func BenchmarkSynthExampleApp(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		out, err := os.MkdirTemp("", "keyplan-bench")
		if err != nil {
			b.Fatal(err)
		}
		app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(out), Context: cdkContext()})
		stacks.New(app, exampleConfig)
		app.Synth(nil)
		os.RemoveAll(out)
	}
}
