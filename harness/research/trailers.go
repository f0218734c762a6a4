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
	// TrailerModel is the model the agent worked with, where its client said it
	// or its settings name it.
	TrailerModel = "Strom-Model"
	// TrailerAgentVersion is the version of the agent's client program.
	TrailerAgentVersion = "Strom-Agent-Version"
)

// TrailerHost names the machine that made a session or claim commit.
const TrailerHost = "Strom-Host"
