// Package app is the Strom app's research overview: a local web page that shows
// the research repos of this computer — mode, run, queue, last sessions, the
// condition's answers — and offers "Finish and stop" at a working agent (R7.3).
//
// It is a face like cmd/strom: every state comes from harness and every action goes
// through it; the server keeps nothing of its own but its secret. Its guarantee is
// that only this computer's person reaches it: it listens on loopback only, every
// request carries the secret token (then its cookie), a Host header other than the
// server's own loopback address is refused (DNS rebinding), the one action is a POST
// with a CSRF token, nothing but the embedded assets is served, and every text from
// a repo is escaped.
package app

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/strom-research/strom/harness/research"

	"github.com/strom-research/strom/messages"
)

//go:embed assets
var assets embed.FS

// cookieName carries the token after the first request.
const cookieName = "strom_app"

// Options configure a Server.
type Options struct {
	// Roots lists the research repos to show, in order; called on every page, so a
	// research added meanwhile appears.
	Roots func() ([]string, error)
	// Forget is told of a research that was moved or deleted, so it drops out.
	Forget func(root string)
	Env    research.Env
	// Lang is the language of the page: en, de or cs.
	Lang string
	// Token is the secret the first request carries; "" makes one.
	Token string
	// Poll is how often the page's event stream looks for changes; 0 is a second.
	Poll time.Duration
}

// Server serves the overview.
type Server struct {
	o     Options
	addr  string // host:port it listens on, for the Host check
	token string
	csrf  string
	w     words
	tmpl  *template.Template

	mu         sync.Mutex
	kept       map[string]keptSessions // root → its last sessions as of its HEAD
	keptReport map[string]keptReport   // root → its report's sessions as of its HEAD and last run
}

// ErrNotLoopback means the address to listen on is not a loopback address.
var ErrNotLoopback = errors.New("strom app listens only on a loopback address (127.0.0.1, ::1)")

// Listen opens addr ("" = 127.0.0.1 on a free port) after checking that it is a
// loopback address.
func Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, messages.New("app.refuse.listen", messages.Args{"Addr": addr})
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil || !ip.IsLoopback() {
		return nil, messages.Errorf(ErrNotLoopback, "app.refuse.not_loopback", messages.Args{"Host": host})
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return l, nil
}

// New makes a server for a listener's address.
func New(addr string, o Options) (*Server, error) {
	if o.Token == "" {
		var b [24]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("make the app's token: %w", err)
		}
		o.Token = hex.EncodeToString(b[:])
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	mac := hmac.New(sha256.New, []byte(o.Token))
	mac.Write([]byte("strom app csrf"))
	s := &Server{o: o, addr: addr, token: o.Token, csrf: hex.EncodeToString(mac.Sum(nil)), w: wordsFor(o.Lang), kept: map[string]keptSessions{},
		keptReport: map[string]keptReport{}}
	t, err := s.parse()
	if err != nil {
		return nil, fmt.Errorf("read the overview's page: %w", err)
	}
	s.tmpl = t
	return s, nil
}

// URL is the address a person opens first: with the token, which then lives in a
// cookie.
func (s *Server) URL() string { return "http://" + s.addr + "/?token=" + s.token }

// Handler is the whole app: every route behind the Host and token checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /overview", s.fragment)
	mux.HandleFunc("GET /events", s.events)
	mux.HandleFunc("POST /finish", s.finish)
	mux.HandleFunc("POST /start-anyway", s.startAnyway)
	mux.HandleFunc("POST /answer", s.answer)
	mux.HandleFunc("POST /unpark", s.unpark)
	mux.HandleFunc("/finish", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, s.w.say("app.refuse.finish_get"), http.StatusMethodNotAllowed)
	})
	static, _ := fs.Sub(assets, "assets/static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	return s.guard(mux)
}

// Serve serves on l until ctx ends.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return nil
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve the app: %w", err)
	}
}

// guard lets through only requests for this server's own loopback address that
// carry the token: in the query (first visit: it goes into a cookie and the address
// bar loses it) or in the cookie.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin") // a form POST then carries its Origin
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("Cache-Control", "no-store")
		if !s.hostAllowed(r.Host) {
			http.Error(w, s.w.say("app.refuse.host"), http.StatusForbidden)
			return
		}
		if q := r.URL.Query().Get("token"); q != "" {
			if !s.tokenOK(q) {
				http.Error(w, s.w.say("app.refuse.token"), http.StatusForbidden)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			u := *r.URL
			v := u.Query()
			v.Del("token")
			u.RawQuery = v.Encode()
			http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(cookieName)
		if err != nil || !s.tokenOK(c.Value) {
			http.Error(w, s.w.say("app.refuse.no_token"), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// hostAllowed accepts the Host the browser sends for the server's own address:
// its loopback IP, or localhost, with its port.
func (s *Server) hostAllowed(host string) bool {
	_, port, err := net.SplitHostPort(s.addr)
	if err != nil {
		return false
	}
	h, p, err := net.SplitHostPort(host)
	if err != nil || p != port {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && ip.IsLoopback()
}
