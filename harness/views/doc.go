// Package views are the read-only views of a research that the faces show: the
// research overview the app polls every second, and what the menu reads of the
// state files and the agent.
//
// Its guarantee: a view only reads the research. The two writes here are a
// person's own: the app's request to finish the working session
// (AskFinishFromApp, a request the run confirms in its terminal) and Remember,
// this computer's list of researches.
package views
