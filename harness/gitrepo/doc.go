// Package gitrepo is strom's access to the research repository's git history.
//
// The guarantee: gitrepo never changes the index, a ref or HEAD except through the
// git CLI, so a concurrent git run by the agent or the person sees git's own locking
// (index.lock, ref locks), every commit gets its reflog entry, and nothing gitrepo does
// can leave the repository in a state git itself would not produce. History is read
// one way: by the git CLI (`git log`, one process a read, bounded by its
// --max-count where the caller wants the newest N), so every repository layout git
// reads is read, and what strom reads is what git log says. gitrepo never edits the
// user's git configuration.
//
// A Checkpoint refuses, and commits nothing, while a merge, rebase, cherry-pick,
// revert, git am or bisect is in progress, while the index has unmerged entries, and
// when a staged file contains conflict markers. A commit message built from a Message
// carries exactly its trailers as the last paragraph: `git interpret-trailers --parse`
// reads back those trailers and nothing else, whatever the body says.
//
// gitrepo does not lock: the caller serialises its own writes.
package gitrepo
