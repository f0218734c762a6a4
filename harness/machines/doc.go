// Package machines is several machines working on one research through the git
// remote they share (sync.remote): a synced run begins by pushing what an earlier
// run left in this clone (Start), claims each task by a pushed commit before its
// session (Claim), publishes each session's commit (Publish), and ends only with
// everything it committed on the remote or a sentence saying what is not
// (LeftBehind). Tasks two clones added under one id are renumbered before the
// merge (renumbering.go), and session commits that meet the remote's in a conflict
// go to a branch of their own with their tasks parked (diverting.go).
//
// Its guarantee: no task is worked on by two machines at once while both reach the
// remote (a claim is a ref the remote holds, taken over only when older than the
// session limit plus StaleGrace), and no commit is lost to a remote away: it stays
// in the clone until a push takes it.
package machines
