package push

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPush: a plain POST with the title in its Title header and the body and the
// command as its text; an answer other than 2xx, a dead address and a URL that is
// not http are errors.
func TestPush(t *testing.T) {
	t.Parallel()
	type got struct{ method, title, ctype, body string }
	seen := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen <- got{r.Method, r.Header.Get("Title"), r.Header.Get("Content-Type"), string(b)}
		if strings.HasSuffix(r.URL.Path, "/refuse") {
			http.Error(w, "no", http.StatusForbidden)
		}
	}))
	defer srv.Close()
	title, text := "strom: parish\nregisters", "the run ended — stopped: done\nstrom status"
	if err := Push(context.Background(), srv.Client(), srv.URL+"/strom", title, text); err != nil {
		t.Fatalf("Push: %v", err)
	}
	g := <-seen
	if g.method != http.MethodPost || g.title != "strom: parish registers" || !strings.HasPrefix(g.ctype, "text/plain") || g.body != "the run ended — stopped: done\nstrom status" {
		t.Fatalf("the server got %+v", g)
	}
	if err := Push(context.Background(), srv.Client(), srv.URL+"/refuse", title, text); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("a 403 answer: %v", err)
	}
	<-seen
	// A port nobody listens on any more.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/x"
	l.Close()
	if err := Push(context.Background(), nil, dead, title, text); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a dead address: %v", err)
	}
	if err := Push(context.Background(), nil, "file:///etc/passwd", title, text); err == nil {
		t.Fatal("a file URL was taken")
	}
}
