package statefiles

import "sync"

// readQueueCache keeps, per tree, the last queue ReadQueue read and the stamps
// of the files it was read from.
var (
	readQueueMu    sync.Mutex
	readQueueCache = map[string]readQueueEntry{}
)

type readQueueEntry struct {
	q  *Queue
	st queueState // the files' stamps, as the index's state has them
}

// ReadQueue is LoadQueue for a reader that only looks, again and again (the app's
// overview, every second): while queue.json and every shard are the ones it read
// last (the check of the queue's index, queuefresh.go), the queue read last is
// given again without reading a file. The tasks must not be changed (their
// slices are shared).
func (t *Tree) ReadQueue() (*Queue, error) {
	readQueueMu.Lock()
	e, ok := readQueueCache[t.Dir]
	readQueueMu.Unlock()
	if ok {
		if cur, err := t.checkQueueFiles(e.st, false); err == nil && cur.fresh() {
			c := *e.q
			c.Tasks = append([]Task(nil), e.q.Tasks...)
			return &c, nil
		}
	}
	cur, err := t.checkQueueFiles(queueState{}, true)
	if err != nil {
		return t.LoadQueue()
	}
	v, o, _, err := t.readOrder()
	if err != nil || v != QueueVersion {
		return t.LoadQueue() // an older queue is read whole each time
	}
	q, shards, err := t.loadShards(o)
	if err != nil {
		return nil, err
	}
	c := *q
	c.Tasks = append([]Task(nil), q.Tasks...)
	readQueueMu.Lock()
	readQueueCache[t.Dir] = readQueueEntry{q: &c, st: cur.state(shards)}
	readQueueMu.Unlock()
	return q, nil
}
