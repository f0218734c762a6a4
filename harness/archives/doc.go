// Package archives asks the outside sources a task needs (R7.1.1) whether they
// answer: a parish register site, a library's scans. A person names each archive in
// the settings with a probe, a shell line that exits 0 when the archive answers.
//
// Its guarantees: Probe is the one place strom starts an archive's probe; a probe's
// answer is its exit, whatever it left running, and nothing it started outlives it
// (internal/procgroup); a probe that does not end within ProbeTimeout on the
// research's clock is stopped with everything it started and counts as not
// answering; and a Prober asks each archive at most once every ProbeEvery, however
// many tasks need it.
package archives
