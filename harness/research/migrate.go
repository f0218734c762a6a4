package research

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// TrailerMigrate marks the commit that migrated a state file to a newer layout:
// the file and its versions, e.g. "queue.json 2 to 3".
const TrailerMigrate = "Strom-Migrate"

// CommitMigration is the tree's OnMigrate: the commit of a migrated queue, its own,
// with only the queue's files (the shards written, the task files of version 2
// removed; and .strom/.gitattributes, when it is strom's older one, so that the
// shards merge with strom's driver). The caller holds the lock.
func CommitMigration(r *Research, from, to, tasks int) error {
	ctx := context.Background()
	paths := []string{statefiles.DirName + "/" + statefiles.QueueFile}
	if _, err := os.Stat(r.Tree.Path(statefiles.TasksDir)); tasks > 0 || from == 2 && err == nil {
		paths = append(paths, statefiles.DirName+"/"+statefiles.TasksDir)
	}
	attrs := r.Tree.Path(statefiles.AttributesFile)
	if old, err := statefiles.ReadFile(attrs); err == nil && bytes.Equal(old, []byte(olderAttributes())) {
		if err := statefiles.WriteAtomic(attrs, []byte(statefiles.Attributes), 0o644); err != nil {
			return err
		}
		paths = append(paths, statefiles.DirName+"/"+statefiles.AttributesFile)
	}
	p := r.Messages()
	args := messages.Args{"From": from, "To": to}
	msg := gitrepo.Message{
		Subject:  p.Say("commit.migrate_queue", args),
		Body:     p.Say("commit.migrate_queue_body", args),
		Trailers: []gitrepo.Trailer{{Key: TrailerMigrate, Value: fmt.Sprintf("%s %d to %d", statefiles.QueueFile, from, to)}},
	}
	_, err := r.CommitPaths(ctx, msg, paths)
	return err
}

// HeadQueue is the tree's HeadQueue: the queue as HEAD has it, read from its files
// of any version extracted from HEAD (nil when HEAD has no queue.json).
func HeadQueue(r *Research) (*statefiles.Queue, error) {
	ctx := context.Background()
	g, err := r.Git(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := g.ReadBlob(ctx, "HEAD:"+statefiles.DirName+"/"+statefiles.QueueFile); err != nil {
		return nil, nil // no commit yet, or none with a queue
	}
	dir, err := os.MkdirTemp("", "strom-migrate-")
	if err != nil {
		return nil, fmt.Errorf("read HEAD's queue: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := g.Extract(ctx, "HEAD", dir, QueuePaths...); err != nil {
		return nil, fmt.Errorf("read HEAD's queue: %w", err)
	}
	return statefiles.At(dir).LoadQueue()
}

// olderAttributes is .strom/.gitattributes as strom wrote it before the tasks had
// files of their own (queue version 1), and before the research had a note.
func olderAttributes() string {
	var out []string
	for _, l := range strings.SplitAfter(statefiles.Attributes, "\n") {
		if !strings.HasPrefix(l, statefiles.TasksDir+"/") && !strings.HasPrefix(l, statefiles.NoteFile+" ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// QueuePaths are the queue's files in a commit, in either layout: queue.json
// alone (version 1), or queue.json with the tasks under tasks/ (a file per task in
// version 2, files of a hundred in version 3).
var QueuePaths = []string{statefiles.DirName + "/" + statefiles.QueueFile, statefiles.DirName + "/tasks"}
