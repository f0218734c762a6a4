package remote

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkClaim is one claim: integrate (fetch, merge), a commit, a push. The
// issue's figure: at most twice BenchmarkFetchPush, a plain fetch and push of
// the same commit on the same remote.
func BenchmarkClaim(b *testing.B) {
	ctx := context.Background()
	_, ms := machines(b, 1)
	a := ms[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ok, err := a.Claim(ctx, func(ctx context.Context) (*Claim, error) {
			c := commitFile(b, a, "claim.txt", fmt.Sprint(i))
			return &Claim{Commit: c, Undo: func(ctx context.Context) error { return a.Git.UndoCommit(ctx, c, "claim.txt") }}, nil
		})
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkFetchPush is the plain git fetch && git push of one commit.
func BenchmarkFetchPush(b *testing.B) {
	ctx := context.Background()
	_, ms := machines(b, 1)
	a := ms[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.Git.Fetch(ctx, a.Remote, a.Branch); err != nil {
			b.Fatal(err)
		}
		commitFile(b, a, "claim.txt", fmt.Sprint(i))
		if err := a.Git.Push(ctx, a.Remote, a.Branch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClaimAndPublish is what sync costs a session: its claim, then its
// commit pushed (Publish); the session's commit itself is not timed. The
// issue's figure: at most twice BenchmarkFetchPush.
func BenchmarkClaimAndPublish(b *testing.B) {
	ctx := context.Background()
	_, ms := machines(b, 1)
	a := ms[0]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ok, err := a.Claim(ctx, func(ctx context.Context) (*Claim, error) {
			c := commitFile(b, a, "claim.txt", fmt.Sprint(i))
			return &Claim{Commit: c, Undo: func(ctx context.Context) error { return a.Git.UndoCommit(ctx, c, "claim.txt") }}, nil
		})
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		b.StopTimer() // the session's commit is the session's, not the sync's
		commitFile(b, a, "session.txt", fmt.Sprint(i))
		b.StartTimer()
		if err := a.Publish(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
