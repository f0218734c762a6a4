package remote

import (
	"context"
	"fmt"
	"testing"
)

// benchSync is one machine of a research with its remote, for a benchmark whose
// timer starts when it is set up.
func benchSync(b *testing.B) *Sync {
	b.Helper()
	_, ms := machines(b, 1)
	b.ResetTimer()
	return ms[0]
}

// claimOnce is the i-th claim: a commit of claim.txt, undone if the claim loses.
func claimOnce(ctx context.Context, b *testing.B, a *Sync, i int) {
	b.Helper()
	ok, err := a.Claim(ctx, firstFree(b, a, []string{fmt.Sprintf("T-%d", i+1)}, nil, nil))
	if err != nil || !ok {
		b.Fatal(ok, err)
	}
}

// BenchmarkClaim is one claim: integrate (fetch the claims and the branch,
// merge), a commit, the push of its claim ref, a look at the branch. The
// issue's figure: at most twice BenchmarkFetchPush, a plain fetch and push of
// the same commit on the same remote.
func BenchmarkClaim(b *testing.B) {
	ctx := context.Background()
	a := benchSync(b)
	for i := 0; i < b.N; i++ {
		claimOnce(ctx, b, a, i)
	}
}

// BenchmarkFetchPush is the plain git fetch && git push of one commit.
func BenchmarkFetchPush(b *testing.B) {
	ctx := context.Background()
	a := benchSync(b)
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
	a := benchSync(b)
	for i := 0; i < b.N; i++ {
		claimOnce(ctx, b, a, i)
		b.StopTimer() // the session's commit is the session's, not the sync's
		commitFile(b, a, "session.txt", fmt.Sprint(i))
		b.StartTimer()
		if err := a.Publish(ctx, func(Held) bool { return true }, 0); err != nil {
			b.Fatal(err)
		}
	}
}
