package statefiles

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// sameAsJSON checks that decodeTask, when it decodes data, gives what
// json.Unmarshal into a zero Task gives, and reports whether it decoded.
func sameAsJSON(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := decodeTask(data)
	if !ok {
		return false
	}
	var want Task
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("decodeTask read %q, which json.Unmarshal refuses: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeTask read %q as\n%#v\njson.Unmarshal as\n%#v", data, got, want)
	}
	return true
}

// shardSameAsJSON is sameAsJSON for a shard's bytes and decodeShardTasks.
func shardSameAsJSON(t *testing.T, data []byte) bool {
	t.Helper()
	got, ok := decodeShardTasks(data)
	if !ok {
		return false
	}
	var want shardDoc
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("decodeShardTasks read %q, which json.Unmarshal refuses: %v", data, err)
	}
	if !reflect.DeepEqual(got, want.Tasks) {
		t.Fatalf("decodeShardTasks read %q as\n%#v\njson.Unmarshal as\n%#v", data, got, want.Tasks)
	}
	return true
}

// TestTaskDecodeTrickyTasks: the tricky tasks, as strom writes them (compacted
// and indented in a shard) and as json.Marshal does (HTML escaped), decode
// without encoding/json to the tasks themselves; their shards too.
func TestTaskDecodeTrickyTasks(t *testing.T) {
	t.Parallel()
	tasks := trickyTasks(1, 99)
	for i := range tasks {
		want := tasks[i]
		strom, err := compactTask(&want)
		if err != nil {
			t.Fatal(err)
		}
		html, err := json.Marshal(&want)
		if err != nil {
			t.Fatal(err)
		}
		var indented bytes.Buffer
		if err := json.Indent(&indented, strom, "    ", "  "); err != nil {
			t.Fatal(err)
		}
		for layout, data := range map[string][]byte{"strom's": strom, "HTML escaped": html, "indented": indented.Bytes()} {
			if !sameAsJSON(t, data) {
				t.Errorf("%s %s: not decoded: %s", want.ID, layout, data)
				continue
			}
			if got, _ := decodeTask(data); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: decoded as %+v, want %+v", want.ID, layout, got, want)
			}
		}
	}
	for _, tasks := range [][]Task{trickyTasks(1, 99), trickyTasks(4200, 4203)} {
		for layout, data := range shardLayouts(t, tasks) {
			if !shardSameAsJSON(t, data) {
				t.Errorf("%s, %s: the shard is not decoded", tasks[0].ID, layout)
			}
			got, err := unmarshalShard(data)
			if err != nil || !reflect.DeepEqual(got, tasks) {
				t.Errorf("%s, %s: the shard decoded as %+v, %v", tasks[0].ID, layout, got, err)
			}
		}
	}
	if !shardSameAsJSON(t, []byte(`{"tasks": []}`)) {
		t.Error("a shard of no tasks is not decoded")
	}
}

// TestTaskDecodeStrings: every escape JSON has, surrogates paired and alone,
// bytes that are not UTF-8, decoded as encoding/json decodes them.
func TestTaskDecodeStrings(t *testing.T) {
	t.Parallel()
	for _, title := range []string{
		`plain`,
		``,
		`\"\\\/\b\f\n\r\t`,
		`\u00e9\u00C9\u0000\u001f\u2028\uFFFD\uffff`,
		`\ud83e\udd80 a crab`,
		`\uD83E\uDD80`,
		`a lone high \ud800 surrogate`,
		`a lone high at the end \ud83e`,
		`a lone low \udc00 surrogate`,
		`high, high, low: \ud800\ud800\udc00`,
		`high then another escape: \ud800\n`,
		`low, high: \udc00\ud800`,
		"raw bytes not UTF-8: \xff\xfe \xc3 \xe2\x82 \xed\xa0\x80 \xf4\x90\x80\x80",
		"not UTF-8 before an escape: \xff\\n",
		"Tábor, 中文, 🦀 \u2028",
		"\xef\xbf\xbd written",
	} {
		data := []byte(`{"id":"T-1","title":"` + title + `","state":"open"}`)
		if !sameAsJSON(t, data) {
			t.Errorf("%q: not decoded", data)
		}
	}
}

// TestTaskDecodeLayouts: what decodeTask decodes, as encoding/json does, and what
// it leaves to encoding/json.
func TestTaskDecodeLayouts(t *testing.T) {
	t.Parallel()
	const times = `"created":"2026-11-30T09:00:00Z","updated":"2026-11-30T10:00:00.123456789+02:00"`
	decoded := []string{
		`{}`,
		" \r\n\t{ \"id\" : \"T-1\" ,\n\t\"state\"\t:\"done\" } \n",
		`{"id":"T-1","title":"t","body":"b","state":"parked",` + times + `,"session":"s","host":"h","reason":"r","parked_from":"waiting","added_by":"a"}`,
		`{"id":"T-1","needs":[]}`,
		`{"id":"T-1","needs":[ "a" , "b\n" ]}`,
		`{"id":"T-1","questions":[]}`,
		`{"id":"T-1","questions":[{}]}`,
		`{"id":"T-1","questions":[{"question":"q","asked":"2026-11-30T09:00:00Z","session":"s","answer":"a","answered":"2026-11-30T09:01:00Z"}, {"question":"r","asked":"2026-11-30T09:02:00+01:00"}]}`,
		`{"id":"T-1","created":"2026-11-30T09:00:00-07:00"}`,
	}
	for _, s := range decoded {
		if !sameAsJSON(t, []byte(s)) {
			t.Errorf("%s: not decoded", s)
		}
	}
	left := []string{
		``,
		`null`,
		`[]`,
		`"T-1"`,
		`{`,
		`{"id":"T-1"`,
		`{"id":"T-1",}`,
		`{"id":"T-1"} {}`,
		`{"id":"T-1"} x`,
		`{"ID":"T-1"}`,
		`{"Title":"t"}`,
		`{"parked_From":"open"}`,
		"{\"\u017fession\":\"s\"}",
		`{"\u0069d":"T-1"}`,
		`{"id":"T-1","other":"x"}`,
		`{"id":"T-1","id":"T-2"}`,
		`{"needs":[],"needs":["a"]}`,
		`{"id":null}`,
		`{"id":1}`,
		`{"id":true}`,
		`{"id":{"a":1}}`,
		`{"id":"T-1","needs":null}`,
		`{"id":"T-1","needs":["a",]}`,
		`{"id":"T-1","needs":["a",1]}`,
		`{"id":"T-1","needs":"a"}`,
		`{"id":"T-1","questions":[{"question":"q","question":"r"}]}`,
		`{"id":"T-1","questions":[{"answered":null}]}`,
		`{"id":"T-1","questions":[{"Question":"q"}]}`,
		`{"id":"T-1","questions":[null]}`,
		`{"id":"T-1","created":"2026-11-30"}`,
		`{"id":"T-1","created":"2026-11-30T09:00:00\u005a"}`,
		`{"id":"T-1","created":null}`,
		`{"id":"T-1","created":"2026-11-30T09:00:00Z","created":"2026-11-30T09:00:00Z"}`,
		`{"id":"an escape json refuses: \'"}`,
		`{"id":"an escape cut short: \u12"}`,
		`{"id":"\x"}`,
		"{\"id\":\"a control character \x01 raw\"}",
		"{\"id\":\"a tab \t raw\"}",
		"{\"id\":\"unterminated",
		`{"id":"T-1"}` + "\x00",
		"\ufeff{\"id\":\"T-1\"}",
	}
	for _, s := range left {
		if sameAsJSON(t, []byte(s)) {
			t.Errorf("%q: decoded, not left to encoding/json", s)
		}
	}
	// What is left to encoding/json decodes as before.
	var task Task
	if err := unmarshalTask([]byte(`{"ID":"T-1","id":"T-2"}`), &task); err != nil || task.ID != "T-2" {
		t.Errorf("keys in two cases decoded as %+v, %v", task, err)
	}
	if err := unmarshalTask([]byte(`{"id":1}`), &task); err == nil {
		t.Errorf("an id of a number decoded as %+v", task)
	}
	if tasks, err := unmarshalShard([]byte(`{"tasks":[{"ID":"T-1"}],"Tasks":[{"id":"T-2"}]}`)); err != nil || len(tasks) != 1 || tasks[0].ID != "T-2" {
		t.Errorf("a shard with its key twice decoded as %+v, %v", tasks, err)
	}
}

// FuzzTaskDecode: whenever decodeTask decodes bytes, json.Unmarshal into a Task
// takes them too and gives the same task; so for decodeShardTasks and a shard's
// bytes, the fuzzed bytes read as a shard and as the one task of one. The seeds,
// under testdata/fuzz/FuzzTaskDecode, are tasks as strom writes them, the
// escapes and bytes encoding/json replaces, and what is left to it.
func FuzzTaskDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsJSON(t, data)
		shardSameAsJSON(t, data)
		shardSameAsJSON(t, append(append([]byte("{\"tasks\": [\n"), data...), "\n]}"...))
	})
}

// BenchmarkTaskDecode decodes a task as bench-age.sh writes them, indented in its
// shard, and one of the tricky ones with needs and a question, by decodeTask and
// by json.Unmarshal.
func BenchmarkTaskDecode(b *testing.B) {
	plainTask := []byte("{\n      \"id\": \"T-7\",\n      \"title\": \"Find the baptism record number 7 in the parish books of Tábor\",\n" +
		"      \"body\": \"Parish of Tábor, around 1850. Look in the registers and write down what was found, with the sources and page numbers.\",\n" +
		"      \"state\": \"open\",\n      \"created\": \"2026-11-30T09:00:00Z\",\n      \"updated\": \"2026-11-30T09:00:00Z\"\n    }")
	tricky := trickyTasks(12, 12)[0]
	trickyTask, err := compactTask(&tricky)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"plain", plainTask}, {"tricky", trickyTask}} {
		if _, ok := decodeTask(c.data); !ok {
			b.Fatalf("%s: not decoded", c.name)
		}
		b.Run(c.name+"/decodeTask", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				decodeTask(c.data)
			}
		})
		b.Run(c.name+"/json.Unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var task Task
				_ = json.Unmarshal(c.data, &task)
			}
		})
	}
}
