// Package chromium drives a headless Chromium for tests: it starts the
// browser with --remote-debugging-pipe and speaks the DevTools protocol
// over that pipe (JSON messages ended by a NUL byte, on file descriptors
// 3 and 4), so it needs no port, no websocket and no module beyond the
// standard library. It knows the few commands keyplan's browser tests use:
// open a page, evaluate JavaScript, press a key, take a screenshot.
package chromium
