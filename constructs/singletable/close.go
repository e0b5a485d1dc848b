package singletable

import "github.com/aws/jsii-runtime-go"

// Close ends the jsii runtime (the node process CDK runs in) cleanly: no
// process and no jsii-runtime.* directory left behind, and no error line.
// Use `defer singletable.Close()` where jsii's documentation says
// `defer jsii.Close()`.
//
// Why not jsii.Close alone: jsii-runtime-go (v1.139.0) starts a goroutine
// that waits for the node process, and Close waits for it too; two waits
// on one process race, and when Close's wins the goroutine prints
// "Runtime process exited abnormally: waitid: no child processes". Close
// here first asks the runtime to exit through its own stdin (the jsii
// protocol's exit message) and lets that goroutine reap it, so jsii.Close
// finds the process gone. Where the node process cannot be found (not
// Linux, or not started) it is jsii.Close.
func Close() {
	endRuntime()
	jsii.Close()
}
