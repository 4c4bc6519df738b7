package tool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// FuzzDecodeSchema: the hand decoder gives the schema json.Unmarshal
// gives, or leaves the input to it. The seed corpus holds every built-in
// tool's rendered input schema (testdata/fuzz/FuzzDecodeSchema).
func FuzzDecodeSchema(f *testing.F) {
	for _, s := range []string{
		`true`, `false`, `null`, `{}`, `[]`, `{"type":["string","null"]}`, `{"type":7}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":2.5e3},"b":false},"required":["a"],"additionalProperties":false}`,
		`{"type":"array","items":{"enum":[1,"x",null,[2.0],{"k":1e2}]},"minItems":1.0,"maxItems":1e2}`,
		`{"minLength":2147483648}`, `{"maxLength":-0}`, `{"minLength":3.5}`, `{"exclusiveMinimum":1e400}`,
		`{"items":[{"type":"string"}]}`, `{"default":1}`, `{"pattern":"^a+$","format":"date-time","title":"t"}`,
		`{"required":null}`, `{"properties":{"a":null}}`, `{"enum":[]} `, `{"type":"string"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want jsonschema.Schema
		wantErr := json.Unmarshal(raw, &want)
		got, err := decodeSchema(raw)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: error %v, json.Unmarshal's %v", raw, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, &want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(&want)
			t.Fatalf("%s:\n got %s\nwant %s", raw, g, w)
		}
	})
}

var fuzzFind = regexp.MustCompile(`^[0-9a-f]{16}$`)

// The fast path must take every built-in schema (else it saves nothing):
// the seeds are the built-in tools' schemas.
func TestDecodeSchemaTakesBuiltInSchemas(t *testing.T) {
	// The seeds named after a tool, not the fuzzer's finds (hex names).
	all, _ := filepath.Glob("testdata/fuzz/FuzzDecodeSchema/*")
	files := slices.DeleteFunc(all, func(f string) bool { return fuzzFind.MatchString(filepath.Base(f)) })
	if len(files) < 10 {
		t.Fatalf("only %d seed schemas", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, lit, _ := strings.Cut(strings.TrimSpace(string(data)), "[]byte(")
		raw, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, ok := fastSchema([]byte(raw)); !ok {
			t.Errorf("%s: a built-in schema went to json.Unmarshal", filepath.Base(f))
		}
	}
}
