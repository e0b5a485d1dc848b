package workbench_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keyplan/keyplan/patterns/model"
	"github.com/keyplan/keyplan/patterns/workbench"
)

// bigModel is a Workbench file of n orders of 500 customers, each with a
// note of noteBytes bytes; after is JSON put after the items (to show
// what is refused before the parse reads it).
func bigModel(n, noteBytes int, after string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"ModelName": "Big", "ModelMetadata": {"Version": "3.0"}, "DataModel": [{"TableName": "Big",
  "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}, "SortKey": {"AttributeName": "SK", "AttributeType": "S"}},
  "NonKeyAttributes": [{"AttributeName": "total", "AttributeType": "N"}], "DataAccess": {"MySql": {}}, "TableData": [`)
	note := strings.Repeat("n", noteBytes)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"PK": {"S": "CUSTOMER#c%d"}, "SK": {"S": "ORDER#o%07d"}, "orderId": {"S": "o%07d"}, "customerId": {"S": "c%d"}, "status": {"S": "%s"}, "total": {"N": "%d"}, "note": {"S": "%s"}}`,
			i%500, i, i, i%500, []string{"PENDING", "PAID", "SHIPPED"}[i%3], i*7%100000, note)
	}
	b.WriteString("]" + after + "}]}")
	return b.Bytes()
}

// An import refuses, before parsing, a file larger than MaxFileBytes and
// one holding more than MaxItems items (the model it would make could not
// load, or would be a proof no one needs), and never writes a model larger
// than the loader takes. On main a 24 MB file took 133 s and 3.3 GB, then
// wrote a model over the 4 MB limit.
func TestImportRefusesWhatTheLoaderCannotTake(t *testing.T) {
	// More items than MaxItems: refused by the count, before the parse
	// gets to the table name after them (not a string: a parse error).
	many := bigModel(workbench.MaxItems+1, 0, `, "TableName": 7`)
	_, err := workbench.Import("many.json", many, workbench.ImportOptions{})
	if !errors.Is(err, workbench.ErrInvalid) || !strings.Contains(err.Error(), fmt.Sprintf("many.json: TableData: more than %d items", workbench.MaxItems)) {
		t.Errorf("%d items: %v", workbench.MaxItems+1, err)
	}
	// Larger than MaxFileBytes: refused by its size, whatever it holds.
	huge := make([]byte, workbench.MaxFileBytes+1)
	if _, err := workbench.Import("huge.json", huge, workbench.ImportOptions{}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("huge.json: larger than %d MB", workbench.MaxFileBytes>>20)) {
		t.Errorf("a file over %d MB: %v", workbench.MaxFileBytes>>20, err)
	}
	path := filepath.Join(t.TempDir(), "huge.json")
	if err := os.WriteFile(path, nil, 0o644); err != nil || os.Truncate(path, 1<<30) != nil { // 1 GB, sparse
		t.Fatal(err)
	}
	if _, err := workbench.ReadFile(path, workbench.ImportOptions{}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("ReadFile of a file over %d MB: %v", workbench.MaxFileBytes>>20, err)
	}
	// Items few enough, but too big for a model: refused, naming the
	// limit (by the values' size, before the keys are inferred).
	fat := bigModel(200, 22000, "")
	if len(fat) > workbench.MaxFileBytes {
		t.Fatalf("the fat file is %d bytes", len(fat))
	}
	im, err := workbench.Import("fat.json", fat, workbench.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("larger than the %d MB keyplan loads", model.MaxModelBytes>>20)) {
		size := 0
		if im != nil {
			size = len(im.YAML)
		}
		t.Errorf("a file whose model would be too big: %v (a model of %d bytes)", err, size)
	}
	// Within the limits: a model that loads.
	im, err = workbench.Import("some.json", bigModel(300, 20, ""), workbench.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Loads(); err != nil {
		t.Errorf("the model of 300 items does not load: %v", err)
	}
}

// The largest file an import takes (MaxItems items): the time and memory
// it costs, and the model it makes, which must load. Reports the peak heap
// seen while importing (MB-peak) besides allocations.
func BenchmarkImportMaxItems(b *testing.B) {
	data := bigModel(workbench.MaxItems, 40, "")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
		}
	})
	var im *workbench.Imported
	for b.Loop() {
		var err error
		if im, err = workbench.Import("max.json", data, workbench.ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(peak.Load())/(1<<20), "MB-peak")
	b.ReportMetric(float64(len(im.YAML))/(1<<20), "MB-model")
	if len(im.YAML) > model.MaxModelBytes {
		b.Fatalf("a model of %d bytes", len(im.YAML))
	}
	if _, err := model.Parse("max.yaml", im.YAML); err != nil {
		b.Fatal(err)
	}
	var m workbench.Model
	if err := json.Unmarshal(data, &m); err != nil || len(m.DataModel[0].TableData) != workbench.MaxItems {
		b.Fatal("the file is not what it says")
	}
}
