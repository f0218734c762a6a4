package merge

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/strom-research/strom/statefiles"
)

// Progress merges three versions of a file of records (.strom/records/
// T-100-199.jsonl, or an older strom's segment or progress.jsonl) as the union of
// their records: every line of ours, in its order, then every line of theirs that
// ours does not have (as often as theirs has it more often), in theirs' order. A
// record either side wrote is never lost; base is not needed, since records are
// only appended to.
func Progress(ours, theirs []byte) ([]byte, error) {
	for _, side := range []struct {
		which string
		data  []byte
	}{{"our version", ours}, {"their version", theirs}} {
		if err := statefiles.Validate(statefiles.ProgressFile, side.data); err != nil {
			return nil, fmt.Errorf("%w: %s of the records is not valid (%v)", ErrConflict, side.which, err)
		}
	}
	have := map[string]int{}
	for _, l := range lines(ours) {
		have[string(l)]++
	}
	out := bytes.Clone(ours)
	for _, l := range lines(theirs) {
		if have[string(l)] > 0 {
			have[string(l)]--
			continue
		}
		out = append(out, l...)
		out = append(out, '\n')
	}
	if err := statefiles.Validate(statefiles.ProgressFile, out); err != nil {
		return nil, fmt.Errorf("%w: the merged records would not be valid (%v)", ErrConflict, err)
	}
	return out, nil
}

func lines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// Park merges three versions of park.json counter by counter: a counter only one
// side changed takes that change (a side that cleared it, too); one both changed
// takes the higher count, so a task that kept failing on both machines is not
// given more sessions than either allowed.
func Park(base, ours, theirs []byte) ([]byte, error) {
	var sides [3]map[string]map[string]int
	for i, side := range []struct {
		which string
		data  []byte
	}{{"the common version", base}, {"our version", ours}, {"their version", theirs}} {
		if i == 0 && len(bytes.TrimSpace(side.data)) == 0 {
			sides[i] = map[string]map[string]int{}
			continue
		}
		if err := statefiles.Validate(statefiles.ParkFile, side.data); err != nil {
			return nil, fmt.Errorf("%w: %s of park.json is not valid (%v)", ErrConflict, side.which, err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(side.data, &raw); err != nil {
			return nil, fmt.Errorf("%w: %s of park.json: %v", ErrConflict, side.which, err)
		}
		sides[i] = map[string]map[string]int{}
		for k, v := range raw {
			if k == "version" {
				continue
			}
			m := map[string]int{}
			if err := json.Unmarshal(v, &m); err != nil {
				return nil, fmt.Errorf("%w: %s of park.json: %v", ErrConflict, side.which, err)
			}
			sides[i][k] = m
		}
	}
	o, a, b := sides[0], sides[1], sides[2]
	out := map[string]map[string]int{}
	for _, counters := range []map[string]map[string]int{o, a, b} {
		for name := range counters {
			out[name] = map[string]int{}
		}
	}
	for name := range out {
		tasks := map[string]bool{}
		for _, side := range []map[string]map[string]int{o, a, b} {
			for id := range side[name] {
				tasks[id] = true
			}
		}
		for id := range tasks {
			ov, av, bv := o[name][id], a[name][id], b[name][id]
			v := av
			switch {
			case av == bv, bv == ov:
			case av == ov:
				v = bv
			default:
				v = max(av, bv)
			}
			if v > 0 {
				out[name][id] = v
			}
		}
	}
	doc := map[string]any{"version": 1}
	for name, m := range out {
		if len(m) > 0 {
			doc[name] = m
		}
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode the merged park counters: %w", err)
	}
	var p statefiles.Park
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%w: the merged park counters: %v", ErrConflict, err)
	}
	return statefiles.EncodePark(&p)
}
