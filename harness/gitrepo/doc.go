// Package gitrepo is strom's access to the research repository's git history.
//
// The guarantee: gitrepo never changes the index, a ref or HEAD except through the
// git CLI, so a concurrent git run by the agent or the person sees git's own locking
// (index.lock, ref locks), every commit gets its reflog entry, and nothing gitrepo does
// can leave the repository in a state git itself would not produce. Reads of history go
// through go-git's storage, and the bounded ones (the newest N commits) through gitrepo's own
// reader of loose objects and pack files; either way gitrepo parses the commits itself
// (parseCommit, in the layout git writes), each falling back to the git CLI whenever it
// cannot read the repository (extensions.worktreeConfig, other extensions, SHA-256,
// alternates, a shallow clone); every path returns identical results. gitrepo never
// edits the user's git configuration to make a reader happy.
//
// A Checkpoint refuses, and commits nothing, while a merge, rebase, cherry-pick,
// revert, git am or bisect is in progress, while the index has unmerged entries, and
// when a staged file contains conflict markers. A commit message built from a Message
// carries exactly its trailers as the last paragraph: `git interpret-trailers --parse`
// reads back those trailers and nothing else, whatever the body says.
//
// gitrepo does not lock: the caller serialises its own writes.
package gitrepo
