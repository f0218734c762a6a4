package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/strom-research/strom/harness/agents"
	"github.com/strom-research/strom/harness/allow"
	"github.com/strom-research/strom/harness/gates"
	"github.com/strom-research/strom/harness/gates/claudeusage"
	"github.com/strom-research/strom/harness/limits"
	"github.com/strom-research/strom/harness/research"
	"github.com/strom-research/strom/harness/runfiles"
	"github.com/strom-research/strom/statefiles"

	"github.com/strom-research/strom/messages"
)

// usageJSON is strom usage --json: what the claude-usage condition sees.
type usageJSON struct {
	WeekUsed         float64    `json:"week_used"`
	WeekPassed       *float64   `json:"week_passed,omitempty"`
	WeekResetsAt     *time.Time `json:"week_resets_at,omitempty"`
	Lead             *float64   `json:"lead,omitempty"`
	Need             *float64   `json:"need,omitempty"`
	N                int        `json:"n"`
	FiveHourUsed     float64    `json:"five_hour_used"`
	FiveHourResetsAt *time.Time `json:"five_hour_resets_at,omitempty"`
	Source           string     `json:"source"`
	AgeS             float64    `json:"age_s"`
}

func usageCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom usage")
	asJSON := fs.Bool("json", false, "help.flag.json")
	var use *ffcli.Command
	use = &ffcli.Command{
		Name:        "usage",
		ShortUsage:  "strom usage [--json] | strom usage report --session ID",
		ShortHelp:   "help.usage.short",
		FlagSet:     fs,
		LongHelp:    withHelp("help.usage.long", ""),
		Subcommands: []*ffcli.Command{usageReportCommand(s)},
		Exec: withArgs(fs, func(ctx context.Context, args []string) error {
			s.json = *asJSON
			if len(args) > 0 {
				return s.usage(s.noSuchCommand(use, args[0]))
			}
			r, err := s.research()
			if err != nil {
				return err
			}
			settings, err := r.Settings()
			if err != nil {
				return err
			}
			spec := gates.Spec{Name: gates.ClaudeUsage}
			var p claudeusage.Params
			if res, err := settings.Resolve("run.gate", ""); err == nil {
				if sp, err := gates.ParseSpec(res.Value); err == nil && sp.Builtin() {
					spec = sp
					p, _ = claudeusage.ParseArgs(sp.Args)
				}
			}
			if err := allow.RequireAllowed(ctx, r, s.terminal() != nil, "agent.claudeConfigDir"); err != nil {
				return err
			}
			a := s.asker(r, settings, spec, "claude")
			rd := a.ReadUsage(ctx)
			if rd.Err != nil {
				return rd.Err
			}
			if rd.Answer != nil {
				reason := rd.Answer.Reason
				if rd.Answer.Said != nil {
					reason = s.msg().Text(rd.Answer.Said)
				}
				return s.fail("usage_week.no_week", messages.Args{"Reason": reason})
			}
			now := r.Now()
			u := rd.Usage
			out := usageJSON{WeekUsed: u.WeekUsed, N: p.N, FiveHourUsed: u.FiveHourUsed, Source: u.Source,
				AgeS: max(0, now.Sub(u.At).Round(time.Second).Seconds())}
			if !u.FiveHourResetsAt.IsZero() {
				out.FiveHourResetsAt = &u.FiveHourResetsAt
			}
			if !u.WeekResetsAt.IsZero() {
				reset, used := u.WeekResetsAt, u.WeekUsed
				for !now.Before(reset) {
					reset, used = reset.Add(claudeusage.Week), 0
				}
				passed := max(0, min(100, float64(now.Sub(reset.Add(-claudeusage.Week)))*100/float64(claudeusage.Week)))
				lead, need := passed-used, min(float64(p.N), passed/2)
				out.WeekUsed, out.WeekResetsAt, out.WeekPassed, out.Lead, out.Need = used, &reset, &passed, &lead, &need
			}
			if *asJSON {
				return s.printJSON(out)
			}
			if out.WeekPassed != nil {
				fmt.Fprintln(s.stdout, s.say("usage_week.week", messages.Args{"Used": pctText(out.WeekUsed), "Passed": pctText(*out.WeekPassed),
					"Lead": numText(*out.Lead), "Need": numText(*out.Need), "N": p.N}))
				fmt.Fprintln(s.stdout, s.say("usage_week.week_resets", messages.Args{"When": out.WeekResetsAt.Local().Format("2006-01-02 15:04 MST")}))
			} else {
				fmt.Fprintln(s.stdout, s.say("usage_week.week_unstarted", messages.Args{"Used": pctText(out.WeekUsed)}))
			}
			if out.FiveHourResetsAt != nil {
				fmt.Fprintln(s.stdout, s.say("usage_week.five_hours_resets", messages.Args{"Used": pctText(out.FiveHourUsed), "When": out.FiveHourResetsAt.Local().Format("15:04")}))
			} else {
				fmt.Fprintln(s.stdout, s.say("usage_week.five_hours", messages.Args{"Used": pctText(out.FiveHourUsed)}))
			}
			fmt.Fprintln(s.stdout, s.say("usage_week.source", messages.Args{"Source": out.Source, "Age": s.msg().Duration(time.Duration(out.AgeS * float64(time.Second)))}))
			return nil
		}),
	}
	return use
}

func numText(x float64) string {
	s := fmt.Sprintf("%.1f", x)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

func pctText(x float64) string { return numText(x) + "%" }

func usageReportCommand(s *sys) *ffcli.Command {
	fs := newFlags(s, "strom usage report")
	session := fs.String("session", "", "help.usage.report.flag.session")
	return &ffcli.Command{
		Name:       "report",
		ShortUsage: "strom usage report --session ID < statusline.json",
		ShortHelp:  "help.usage.report.short",
		FlagSet:    fs,
		LongHelp:   withHelp("help.usage.report.long", ""),
		Exec: func(ctx context.Context, args []string) error {
			if _, err := positionals(fs, args); err != nil {
				return err
			}
			// The status line shows what is printed: no time notes, no error text.
			s.json = true
			data, _ := readAll(s.stdin)
			line := s.reportUsage(*session, data)
			fmt.Fprintln(s.stdout, line)
			return nil
		},
	}
}

// reportUsage stores the agent's report and returns the status line to show.
func (s *sys) reportUsage(session string, data []byte) string {
	r, err := s.research()
	if err != nil {
		return "strom"
	}
	now := r.Now()
	u, ok := usageFromReport(r.Tree, data, now)
	status := []string{"strom"}
	var ri *runfiles.RunInfo
	if research.ValidSessionID(session) {
		ri, _ = runfiles.LiveRun(r)
	}
	if ri != nil && ri.Session == session {
		// The statusLine's input names the client's model and version: kept for
		// the session's commit (Strom-Model, Strom-Agent-Version).
		if m, ok := statusLineModel(data); ok {
			_ = runfiles.NoteAgentModel(r, session, m)
		}
		status = append(status, ri.Task)
		if !ri.Deadline.IsZero() {
			status = append(status, s.say("usage_week.status_left", messages.Args{"Minutes": max(0, int(ri.Deadline.Sub(now).Minutes()))}))
		}
	}
	if ok {
		_ = gates.SaveReport(r.Tree, session, u)
		status = append(status, s.say("usage_week.status_week", messages.Args{"Used": pctText(u.WeekUsed)}), "5h "+pctText(u.FiveHourUsed))
		if w, found := gates.LoadWatch(r.Tree); found && ri != nil && ri.Session == session && w.PID == ri.PID {
			f, asked := runfiles.FinishRequested(r, session)
			switch {
			case w.WeekFinishAt > 0 && u.WeekUsed >= w.WeekFinishAt:
				// The week's cap ends the run; it outranks every other request.
				if !asked || f.By != runfiles.FinishByCondition {
					_ = runfiles.RequestCapFinish(r, session, w.Gate, s.capReached(u, w.WeekFinishAt, now))
				}
				status = append(status, s.say("usage_week.status_finishing"))
			case w.FiveHourFinishAt > 0 && u.FiveHourUsed >= w.FiveHourFinishAt:
				// The five-hour limit finishes the session; a person's request,
				// which ends the run, stays.
				if !asked {
					_ = runfiles.RequestWindowFinish(r, session, w.Gate, s.say("usage_week.five_hour_reached",
						messages.Args{"Used": pctText(u.FiveHourUsed), "Limit": pctText(w.FiveHourFinishAt)}))
				}
				status = append(status, s.say("usage_week.status_finishing_window"))
			}
		}
	}
	return strings.Join(status, " · ")
}

// capReached is why a watched session is asked to finish: the week's usage at the
// limit, and when the week resets where the agent said it (R7.5.4), as the stop
// before a session says it.
func (s *sys) capReached(u claudeusage.Usage, limit float64, now time.Time) string {
	args := messages.Args{"Used": pctText(u.WeekUsed), "Limit": pctText(limit)}
	if u.WeekResetsAt.IsZero() {
		return s.say("usage_week.cap_reached", args)
	}
	args["Resets"] = claudeusage.ResetWords(claudeusage.NextReset(u.WeekResetsAt, now))
	return s.say("usage_week.cap_reached_resets", args)
}

// usageFromReport reads a statusLine JSON, or stream-json rate_limit_event lines
// merged into the last report.
func usageFromReport(tree *statefiles.Tree, data []byte, now time.Time) (claudeusage.Usage, bool) {
	if u, err := claudeusage.ParseStatusLine(data, now); err == nil {
		return u, true
	}
	prev, had := gates.LoadReport(tree)
	u, found := prev, false
	for _, line := range bytes.Split(data, []byte("\n")) {
		ev, ok := limits.ParseRateLimitEvent(line)
		if !ok || !ev.HasUtilization {
			continue
		}
		switch ev.Type {
		case "seven_day":
			u.WeekUsed, u.WeekResetsAt, found = ev.Utilization, ev.ResetsAt, true
		case "five_hour":
			u.FiveHourUsed, u.FiveHourResetsAt = ev.Utilization, ev.ResetsAt
			found = found || had
		}
	}
	if !found {
		return claudeusage.Usage{}, false
	}
	u.Source, u.At = "rate_limit_event", now
	return u, true
}

// statusLineModel reads the model and the client's version from the JSON Claude
// Code hands its statusLine command: "model": {"id": …}, "version": ….
func statusLineModel(data []byte) (runfiles.AgentModel, bool) {
	var in struct {
		Model struct {
			ID string `json:"id"`
		} `json:"model"`
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &in) != nil {
		return runfiles.AgentModel{}, false
	}
	m := runfiles.AgentModel{Model: agents.ModelText(in.Model.ID), Version: agents.ModelText(in.Version)}
	return m, m != (runfiles.AgentModel{})
}
