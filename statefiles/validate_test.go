package statefiles

import (
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// TestMetaschemasOnFirstUse: the jsonschema in use compiles each draft's metaschema
// on first use (internal/jsonschema/README.md). Every draft must still refuse a
// schema that breaks its metaschema and accept one that keeps it, also when many
// goroutines ask for the same metaschema at once.
func TestMetaschemasOnFirstUse(t *testing.T) {
	t.Parallel()
	drafts := []string{
		"http://json-schema.org/draft-04/schema#",
		"http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-07/schema#",
		"https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	}
	compile := func(draft, body string) error {
		c := jsonschema.NewCompiler()
		src := `{"$schema": "` + draft + `", ` + body + `}`
		if err := c.AddResource("https://strom.invalid/t.json", strings.NewReader(src)); err != nil {
			return err
		}
		_, err := c.Compile("https://strom.invalid/t.json")
		return err
	}
	var wg sync.WaitGroup
	for _, d := range drafts {
		for range 4 {
			wg.Go(func() {
				if err := compile(d, `"type": 5`); err == nil || !strings.Contains(err.Error(), "/type") {
					t.Errorf("%s: a schema with \"type\": 5 compiled (err %v); the metaschema was not applied", d, err)
				}
				if err := compile(d, `"minLength": -1`); err == nil {
					t.Errorf("%s: a schema with \"minLength\": -1 compiled; the metaschema was not applied", d)
				}
				if err := compile(d, `"type": "object", "required": ["a"]`); err != nil {
					t.Errorf("%s: a valid schema was refused: %v", d, err)
				}
			})
		}
	}
	wg.Wait()
	// A metaschema named by its URL is a schema itself: an instance is validated
	// against it.
	c := jsonschema.NewCompiler()
	meta, err := c.Compile("https://json-schema.org/draft/2020-12/schema")
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.Validate(map[string]any{"type": 5.0}); err == nil {
		t.Error("the 2020-12 metaschema accepted {\"type\": 5}")
	}
}
