package chromium

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Path is where Debian's chromium package installs the browser.
const Path = "/usr/bin/chromium"

// Find returns the browser to use: $KEYPLAN_CHROMIUM, else Path, else
// chromium or chromium-browser on $PATH; an error says what was looked for.
func Find() (string, error) {
	if p := os.Getenv("KEYPLAN_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$KEYPLAN_CHROMIUM: %w", err)
		}
		return p, nil
	}
	if _, err := os.Stat(Path); err == nil {
		return Path, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium: not at %s nor on $PATH, and $KEYPLAN_CHROMIUM is not set (Debian: apt-get install chromium)", Path)
}

// Flags keep the browser offline and quiet: no network of its own, no
// first-run, no sync, no component updates.
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-extensions", "--hide-scrollbars", "--mute-audio",
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd  *exec.Cmd
	in   *os.File // commands to the browser (its fd 3)
	out  *os.File // responses from it (its fd 4)
	mu   sync.Mutex
	next int
	wait map[int]chan reply
	done chan struct{}
	err  error
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Start starts the browser bin with a new empty profile in profileDir.
func Start(bin, profileDir string) (*Browser, error) {
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	args := append(append([]string{}, Flags...), "--remote-debugging-pipe", "--user-data-dir="+profileDir, "about:blank")
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{cmdR, resW} // fds 3 and 4
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{cmdR, cmdW, resR, resW} {
			f.Close()
		}
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	cmdR.Close()
	resW.Close()
	b := &Browser{cmd: cmd, in: cmdW, out: resR, wait: map[int]chan reply{}, done: make(chan struct{})}
	go b.read()
	return b, nil
}

// read dispatches the browser's messages: replies to their callers;
// events are dropped (callers poll instead).
func (b *Browser) read() {
	r := bufio.NewReaderSize(b.out, 1<<20)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.err = fmt.Errorf("the browser closed its pipe: %w", err)
			for _, c := range b.wait {
				close(c)
			}
			b.wait = map[int]chan reply{}
			b.mu.Unlock()
			close(b.done)
			return
		}
		var m struct {
			ID *int `json:"id"`
			reply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == nil {
			continue
		}
		b.mu.Lock()
		c := b.wait[*m.ID]
		delete(b.wait, *m.ID)
		b.mu.Unlock()
		if c != nil {
			c <- m.reply
		}
	}
}

// call sends one command (to a page when session is set) and decodes
// its result into out (when not nil).
func (b *Browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return b.err
	}
	b.next++
	id := b.next
	c := make(chan reply, 1)
	b.wait[id] = c
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-c:
		if !ok {
			return fmt.Errorf("%s: %w", method, b.err)
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.wait, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Close asks the browser to quit, and kills it if it has not within five
// seconds.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		err = <-exited
	}
	b.in.Close()
	b.out.Close()
	return err
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string
}

// NewPage opens a blank tab whose viewport is width × height CSS pixels.
func (b *Browser) NewPage(ctx context.Context, width, height int) (*Page, error) {
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &t); err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}, &s); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: s.SessionID}
	if err := p.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Page) call(ctx context.Context, method string, params, out any) error {
	return p.b.call(ctx, p.session, method, params, out)
}

// Navigate loads url and waits until the document is complete.
func (p *Page) Navigate(ctx context.Context, url string) error {
	var r struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call(ctx, "Page.navigate", map[string]any{"url": url}, &r); err != nil {
		return err
	}
	if r.ErrorText != "" {
		return fmt.Errorf("loading %s: %s", url, r.ErrorText)
	}
	return p.WaitFor(ctx, `document.readyState === "complete" && location.href === `+quote(url))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ErrTimeout is returned by WaitFor when the condition never held.
var ErrTimeout = errors.New("condition not met in time")

// WaitFor polls a JavaScript condition until it is true (at most ten
// seconds, or the context's deadline).
func (p *Page) WaitFor(ctx context.Context, cond string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var ok bool
		if err := p.Eval(ctx, "!!("+cond+")", &ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %w", cond, ErrTimeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value (JSON) into out; a thrown exception is an error.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("javascript: %s %s (in %.200s)", r.Exception.Text, r.Exception.Exception.Description, expr)
	}
	if out == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Press types one key (as the keyboard would: "Enter", "Tab") into the
// focused element.
func (p *Page) Press(ctx context.Context, key string) error {
	codes := map[string]int{"Enter": 13, "Tab": 9, "Escape": 27}
	code, ok := codes[key]
	if !ok {
		return fmt.Errorf("key %q: expected one of Enter, Tab, Escape", key)
	}
	for _, typ := range []string{"rawKeyDown", "keyUp"} {
		params := map[string]any{"type": typ, "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
		if typ == "rawKeyDown" && key == "Enter" {
			params["text"] = "\r"
			params["type"] = "keyDown"
		}
		if err := p.call(ctx, "Input.dispatchKeyEvent", params, nil); err != nil {
			return err
		}
	}
	return nil
}

// Screenshot captures the viewport as a PNG.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}
