package research

// Trailer keys of harness commits.
const (
	TrailerSession = "Strom-Session"
	TrailerTask    = "Strom-Task"
	TrailerEnd     = "Strom-End"
	TrailerAgent   = "Strom-Agent"
	TrailerCheck   = "Strom-Check"
	TrailerMode    = "Strom-Mode"
	TrailerRecords = "Strom-Records" // how many records the session made
)

// TrailerHost names the machine that made a session or claim commit.
const TrailerHost = "Strom-Host"
