package research

import (
	"context"
	"os"
	"slices"
	"strings"

	"github.com/strom-research/strom/harness/gitrepo"
	"github.com/strom-research/strom/messages"
	"github.com/strom-research/strom/statefiles"
)

// progressMigration is the trailer value of the commit that moved the records of
// an older strom (segments, progress.jsonl) into the files of a hundred; an
// earlier strom's commit that moved progress.jsonl into segments says
// "progress.jsonl to progress/".
const progressMigration = "progress to " + statefiles.RecordsDir + "/"

// CommitProgressMigration is the tree's OnMigrateProgress: the commit of the
// records moved from an older strom's .strom/progress.jsonl and segments into
// .strom/records/, its own, with only those files (and .strom/.gitattributes,
// when it is one strom wrote before, so that the files of records merge with
// strom's driver). The caller holds the lock.
func CommitProgressMigration(r *Research, records int) error {
	ctx := context.Background()
	g, err := r.Git(ctx)
	if err != nil {
		return err
	}
	var paths []string
	// git names only a path it knows: progress.jsonl or the segments may never
	// have been committed.
	for _, rel := range []string{statefiles.ProgressFile, statefiles.ProgressDir} {
		old := statefiles.DirName + "/" + rel
		if known, err := g.IndexPaths(ctx, old); err != nil {
			return err
		} else if len(known) > 0 {
			paths = append(paths, old)
		}
	}
	if _, err := os.Stat(r.Tree.Path(statefiles.RecordsDir)); err == nil {
		paths = append(paths, statefiles.DirName+"/"+statefiles.RecordsDir)
	}
	attrs := r.Tree.Path(statefiles.AttributesFile)
	if old, err := statefiles.ReadFile(attrs); err == nil && OlderStromAttributes(string(old)) {
		if err := statefiles.WriteAtomic(attrs, []byte(statefiles.Attributes), 0o644); err != nil {
			return err
		}
		paths = append(paths, statefiles.DirName+"/"+statefiles.AttributesFile)
	}
	if len(paths) == 0 {
		return nil // nothing git has: an empty progress.jsonl never committed
	}
	p := r.Messages()
	args := messages.Args{"Count": records}
	msg := gitrepo.Message{
		Subject:  p.Say("commit.migrate_progress", args),
		Body:     p.Say("commit.migrate_progress_body", args),
		Trailers: []gitrepo.Trailer{{Key: TrailerMigrate, Value: progressMigration}},
	}
	_, err = r.CommitPaths(ctx, msg, paths)
	return err
}

// earlierAttributes are the lines of .strom/.gitattributes as earlier strom
// versions wrote it.
var earlierAttributes = []string{
	"# strom merges its own files where two lines of history meet (strom hooks install).",
	"queue.json merge=strom-queue",
	"tasks/*.json merge=strom-task",
	"progress.jsonl merge=strom-progress",
	"progress/*.jsonl merge=strom-progress",
	"park.json merge=strom-park",
	"",
}

// OlderStromAttributes reports whether a .strom/.gitattributes is one an older
// strom wrote: not today's, and every line of it a line of today's or of an
// earlier strom's. A file a person changed is left alone.
func OlderStromAttributes(old string) bool {
	if old == statefiles.Attributes {
		return false
	}
	now := strings.Split(statefiles.Attributes, "\n")
	for _, l := range strings.Split(old, "\n") {
		if !slices.Contains(now, l) && !slices.Contains(earlierAttributes, l) {
			return false
		}
	}
	return true
}
