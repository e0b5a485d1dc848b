package streamtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/keyplan/keyplan/patterns"
)

// Log is what a handler logged (JSON lines, as it logs to CloudWatch).
type Log struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// NewLog is a logger writing to a Log, and the Log.
func NewLog() (*slog.Logger, *Log) {
	l := &Log{}
	return slog.New(slog.NewJSONHandler(l, nil)), l
}

// Write takes one line of the handler's log.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Lines are the logged lines whose msg is msg ("" for every line), each
// decoded.
func (l *Log) Lines(msg string) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if msg == "" || m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// Metrics sums the metrics of every line in CloudWatch's embedded metric
// format, checking each as CloudWatch reads it: an _aws member with a
// timestamp, the namespace and dimension of patterns, every metric it
// declares present as a number and the dimension as a string.
func (l *Log) Metrics() (map[string]float64, error) {
	out := map[string]float64{}
	for _, m := range l.Lines("") {
		meta, ok := m["_aws"].(map[string]any)
		if !ok {
			continue
		}
		if _, ok := meta["Timestamp"].(float64); !ok {
			return nil, fmt.Errorf("an EMF line without a timestamp: %v", m)
		}
		dirs, _ := meta["CloudWatchMetrics"].([]any)
		if len(dirs) == 0 {
			return nil, fmt.Errorf("an EMF line without CloudWatchMetrics: %v", m)
		}
		for _, d := range dirs {
			dir, _ := d.(map[string]any)
			if dir["Namespace"] != patterns.MetricNamespace {
				return nil, fmt.Errorf("namespace %v, want %s", dir["Namespace"], patterns.MetricNamespace)
			}
			dims, _ := dir["Dimensions"].([]any)
			if len(dims) != 1 || !slices.Equal(toStrings(dims[0]), []string{patterns.MetricDimension}) {
				return nil, fmt.Errorf("dimensions %v, want [[%s]]", dims, patterns.MetricDimension)
			}
			if _, ok := m[patterns.MetricDimension].(string); !ok {
				return nil, fmt.Errorf("the line has no %s: %v", patterns.MetricDimension, m)
			}
			metrics, _ := dir["Metrics"].([]any)
			for _, x := range metrics {
				name, _ := x.(map[string]any)["Name"].(string)
				v, ok := m[name].(float64)
				if !ok {
					return nil, fmt.Errorf("metric %q declared but not on the line: %v", name, m)
				}
				out[name] += v
			}
		}
	}
	return out, nil
}

func toStrings(v any) []string {
	xs, _ := v.([]any)
	var out []string
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
