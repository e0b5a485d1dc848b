// Command app is keyplan's example CDK app: `make synth` (cdk.json) runs it.
package main
