# PowerShell completion for strom, written by strom completion powershell.
Register-ArgumentCompleter -Native -CommandName strom -ScriptBlock {
	param($wordToComplete, $commandAst, $cursorPosition)
	$tree = @{
		'' = @(@{n = 'init'; h = 'make a git repo (or a new folder) a research repo'}; @{n = 'task'; h = 'the task queue; alone, inside a session: this session''s task and time left'}; @{n = 'record'; h = 'write down what was found; a session that records nothing counts toward parking its task'}; @{n = 'done'; h = 'mark the task done; inside a session this also closes the session'}; @{n = 'ask'; h = 'the task waits for a person''s answer; the session closes'}; @{n = 'note'; h = 'print or rewrite the research''s note: what the next session should know'}; @{n = 'config'; h = 'settings: for this computer, or with --for-tree for this research only'}; @{n = 'status'; h = 'mode, tasks by state, the last session and the running one'}; @{n = 'log'; h = 'the sessions, newest first, read from the commits'' trailers'}; @{n = 'report'; h = 'the morning in one look: how the last run ended, what its sessions found, the questions and parked tasks that wait for you'}; @{n = 'hooks'; h = 'the git hook strom puts in place'}; @{n = 'run'; h = 'let the agent work alone through the queue, one session per task'}; @{n = 'session'; h = 'the running session: list, ask to finish, stop, read its transcript, type into it'}; @{n = 'mode'; h = 'research, a Strom archive, or research waiting for an agent; a person switches'}; @{n = 'chat'; h = 'work on a task together with the agent, at the terminal'}; @{n = 'gate'; h = 'the condition asked before each session: what it would say now'}; @{n = 'usage'; h = 'the Claude subscription''s week as the claude-usage condition sees it'}; @{n = 'allow'; h = 'allow this research''s settings that start programs on this computer'}; @{n = 'app'; h = 'the research overview in a browser: the runs of this computer, Finish and stop'}; @{n = 'menu'; h = 'the research''s menu in the terminal (strom alone on a terminal opens it too)'}; @{n = 'setup'; h = 'what a new research on this computer should be: research, or only a Strom archive'}; @{n = 'help'; h = 'the help of a command: strom help run is strom run --help'}; @{n = 'completion'; h = 'a script that completes strom''s commands and flags in bash, zsh, fish or PowerShell'}; @{n = 'version'; h = 'print this strom''s version, its commit and the commit''s date'}; @{n = 'demo-agent'; h = '(run by strom) the built-in scripted agent of make demo and the tests'}; @{n = '--version'; h = 'print the version and exit'})
		'init' = @(@{n = '--agent'; h = 'the agent of this research: claude, codex, opencode, grok, command or demo (default: the first installed)'})
		'task' = @(@{n = 'add'; h = 'add a task at the end of the queue and print its id'}; @{n = 'list'; h = 'the queue in order'}; @{n = 'show'; h = 'one task with its questions and records'}; @{n = 'edit'; h = 'change a task''s title or text'}; @{n = 'move'; h = 'reorder the queue'}; @{n = 'park'; h = 'set a task aside; only a person unparks it'}; @{n = 'unpark'; h = 'return a parked task to where it was'}; @{n = 'answer'; h = 'answer a waiting task''s question; it returns to the queue'}; @{n = 'summary'; h = 'print or rewrite a task''s summary: where it stands, what comes next'}; @{n = '--json'; h = 'print JSON'})
		'task add' = @(@{n = '--body'; h = 'the task''s text'}; @{n = '--body-file'; h = 'read the task''s text from a file (- = stdin)'}; @{n = '--json'; h = 'print the new task as JSON'}; @{n = '--needs'; h = 'the archives the task reads, comma-separated: a run takes it only while they answer'})
		'task list' = @(@{n = '--all'; h = 'show every task, not a page'}; @{n = '--json'; h = 'print JSON'}; @{n = '--page'; h = 'show page N of 100 tasks (default: the first; with --json: all)'}; @{n = '--state'; h = 'only tasks in this state: open, started, waiting, done, parked'})
		'task show' = @(@{n = '--json'; h = 'print JSON'}; @{n = '--page'; h = 'show page N of the records, 20 a page, the newest first (default: every record)'})
		'task edit' = @(@{n = '--body'; h = 'the new text'}; @{n = '--body-file'; h = 'read the new text from a file (- = stdin)'}; @{n = '--needs'; h = 'the archives the task reads, comma-separated ("" = none)'}; @{n = '--title'; h = 'the new title'})
		'task move' = @(@{n = '--before'; h = 'the task to put it before'})
		'task park' = @(@{n = '--why'; h = 'why the task is set aside'})
		'task unpark' = @()
		'task answer' = @()
		'task summary' = @(@{n = '--file'; h = 'the summary''s text from file F (- for stdin)'}; @{n = '--json'; h = 'print JSON'})
		'record' = @(@{n = '--task'; h = 'the task (outside a session)'})
		'done' = @()
		'ask' = @(@{n = '--task'; h = 'the task (outside a session)'})
		'note' = @(@{n = '--file'; h = 'the note''s text from file F (- for stdin)'}; @{n = '--json'; h = 'print JSON'})
		'config' = @(@{n = 'get'; h = 'a setting''s value and which source won'}; @{n = 'set'; h = 'change a setting'}; @{n = 'unset'; h = 'remove a setting so the next source applies'}; @{n = '--json'; h = 'print JSON'})
		'config get' = @(@{n = '--json'; h = 'print JSON'})
		'config set' = @(@{n = '--for-tree'; h = 'set it for this research only (.strom/config.json)'})
		'config unset' = @(@{n = '--for-tree'; h = 'unset it for this research only'})
		'status' = @(@{n = '--json'; h = 'print JSON'})
		'log' = @(@{n = '--json'; h = 'print JSON'}; @{n = '-n'; h = 'show at most N sessions (0 = all)'})
		'report' = @(@{n = '--json'; h = 'print JSON'}; @{n = '--since'; h = 'everything since TIME: HH:MM (the last such moment), today, yesterday, a date (2026-11-30) or an RFC 3339 time'})
		'hooks' = @(@{n = 'install'; h = 'install the pre-commit hook that keeps a broken queue out of the history'}; @{n = 'pre-commit'; h = '(run by the git hook) check the staged .strom/ files'}; @{n = 'merge-driver'; h = '(run by git) merge one of strom''s files where two lines of history meet'}; @{n = 'claude-stop'; h = '(run by Claude Code''s Stop hook) let the agent stop'}; @{n = 'claude-event'; h = '(run by Claude Code''s hooks) take note of an event'})
		'hooks install' = @()
		'hooks pre-commit' = @()
		'hooks merge-driver' = @()
		'hooks claude-stop' = @()
		'hooks claude-event' = @()
		'run' = @(@{n = '--agent'; h = 'the agent for this run: claude, codex, opencode, grok, command or demo'}; @{n = '--gate'; h = 'this run asks this condition instead of run.gate: "<name> [args]" (a person confirms)'}; @{n = '--interactive'; h = 'type into the agent yourself; the first Ctrl-C stops at once'}; @{n = '--loop'; h = 'session after session while there is work'}; @{n = '--max'; h = 'at most N sessions (1–100)'}; @{n = '--minutes'; h = 'time limit of one session in minutes (5–600)'}; @{n = '--no-gate'; h = 'this run asks no condition (a person confirms)'}; @{n = '--task'; h = 'work on these tasks in this order, one session each (repeat or comma-separate)'}; @{n = '--until'; h = 'start no session after HH:MM (a time already past today means tomorrow)'})
		'session' = @(@{n = 'list'; h = 'the running sessions'}; @{n = 'finish'; h = 'ask a running session to finish: the agent records and closes, then the run ends'}; @{n = 'log'; h = 'a session''s transcript by lines (the last 200 by default)'}; @{n = 'send'; h = 'type text or keys into a running agent'}; @{n = 'stop'; h = 'stop a running session at once: its work is committed, its task back in the queue, the run ends'}; @{n = 'close'; h = '(the agent) end this session; the task stays in the queue unless done or waiting'})
		'session list' = @(@{n = '--json'; h = 'print JSON'})
		'session finish' = @()
		'session log' = @(@{n = '--limit'; h = 'at most K lines'}; @{n = '--offset'; h = 'first line, counted from 0'}; @{n = '--wait'; h = 'wait up to MS milliseconds (at most 30000) for new output of a running session'})
		'session send' = @(@{n = '--keys'; h = 'the words after N are key names: C-c Enter Up Tab Escape … (C-x: Ctrl with a letter)'}; @{n = '--no-enter'; h = 'write the text only, without Enter'}; @{n = '--paste'; h = 'enter the text as a bracketed paste'})
		'session stop' = @()
		'session close' = @()
		'mode' = @(@{n = '--json'; h = 'print JSON'})
		'chat' = @(@{n = '--agent'; h = 'the agent: claude, codex, opencode, grok, command or demo'}; @{n = '--minutes'; h = 'time limit of the chat in minutes (5–600)'}; @{n = '--task'; h = 'the open task to work on (default: the first open task)'})
		'gate' = @(@{n = 'test'; h = 'what the condition would say now; changes nothing'})
		'gate test' = @(@{n = '--gate'; h = 'ask this condition instead of run.gate: "<name> [args]"'}; @{n = '--json'; h = 'print the answer object'}; @{n = '--now'; h = 'answer for this moment (RFC 3339, or YYYY-MM-DDTHH:MM in local time)'}; @{n = '--usage-file'; h = 'claude-usage: read the usage from this Claude Code statusLine JSON (with rate_limits)'})
		'usage' = @(@{n = 'report'; h = 'the agent''s own usage report: Claude Code''s statusLine calls it'}; @{n = '--json'; h = 'print JSON'})
		'usage report' = @(@{n = '--session'; h = 'the session whose agent reports'})
		'allow' = @(@{n = '--json'; h = 'print JSON (with --list)'}; @{n = '--list'; h = 'list what a person allowed on this computer, for every research'}; @{n = '--revoke'; h = 'forget what was allowed for this research (the settings named, or all)'})
		'app' = @(@{n = '--listen'; h = 'serve on this loopback address, 127.0.0.1:PORT (default: a free port)'}; @{n = '--open'; h = 'also open the overview in the browser'}; @{n = '--repo'; h = 'show only the research repo in this folder'})
		'menu' = @()
		'setup' = @(@{n = '--new'; h = 'what a new research on this computer is, without asking: research or archive'})
		'completion' = @(@{n = 'bash'; h = ''}; @{n = 'zsh'; h = ''}; @{n = 'fish'; h = ''}; @{n = 'powershell'; h = ''})
		'version' = @()
		'demo-agent' = @(@{n = '--prompt-file'; h = 'the session prompt'})
		'help' = @(@{n = 'init'; h = 'make a git repo (or a new folder) a research repo'}; @{n = 'task'; h = 'the task queue; alone, inside a session: this session''s task and time left'}; @{n = 'record'; h = 'write down what was found; a session that records nothing counts toward parking its task'}; @{n = 'done'; h = 'mark the task done; inside a session this also closes the session'}; @{n = 'ask'; h = 'the task waits for a person''s answer; the session closes'}; @{n = 'note'; h = 'print or rewrite the research''s note: what the next session should know'}; @{n = 'config'; h = 'settings: for this computer, or with --for-tree for this research only'}; @{n = 'status'; h = 'mode, tasks by state, the last session and the running one'}; @{n = 'log'; h = 'the sessions, newest first, read from the commits'' trailers'}; @{n = 'report'; h = 'the morning in one look: how the last run ended, what its sessions found, the questions and parked tasks that wait for you'}; @{n = 'hooks'; h = 'the git hook strom puts in place'}; @{n = 'run'; h = 'let the agent work alone through the queue, one session per task'}; @{n = 'session'; h = 'the running session: list, ask to finish, stop, read its transcript, type into it'}; @{n = 'mode'; h = 'research, a Strom archive, or research waiting for an agent; a person switches'}; @{n = 'chat'; h = 'work on a task together with the agent, at the terminal'}; @{n = 'gate'; h = 'the condition asked before each session: what it would say now'}; @{n = 'usage'; h = 'the Claude subscription''s week as the claude-usage condition sees it'}; @{n = 'allow'; h = 'allow this research''s settings that start programs on this computer'}; @{n = 'app'; h = 'the research overview in a browser: the runs of this computer, Finish and stop'}; @{n = 'menu'; h = 'the research''s menu in the terminal (strom alone on a terminal opens it too)'}; @{n = 'setup'; h = 'what a new research on this computer should be: research, or only a Strom archive'}; @{n = 'help'; h = 'the help of a command: strom help run is strom run --help'}; @{n = 'completion'; h = 'a script that completes strom''s commands and flags in bash, zsh, fish or PowerShell'}; @{n = 'version'; h = 'print this strom''s version, its commit and the commit''s date'}; @{n = 'demo-agent'; h = '(run by strom) the built-in scripted agent of make demo and the tests'})
		'help task' = @(@{n = 'add'; h = 'add a task at the end of the queue and print its id'}; @{n = 'list'; h = 'the queue in order'}; @{n = 'show'; h = 'one task with its questions and records'}; @{n = 'edit'; h = 'change a task''s title or text'}; @{n = 'move'; h = 'reorder the queue'}; @{n = 'park'; h = 'set a task aside; only a person unparks it'}; @{n = 'unpark'; h = 'return a parked task to where it was'}; @{n = 'answer'; h = 'answer a waiting task''s question; it returns to the queue'}; @{n = 'summary'; h = 'print or rewrite a task''s summary: where it stands, what comes next'})
		'help config' = @(@{n = 'get'; h = 'a setting''s value and which source won'}; @{n = 'set'; h = 'change a setting'}; @{n = 'unset'; h = 'remove a setting so the next source applies'})
		'help hooks' = @(@{n = 'install'; h = 'install the pre-commit hook that keeps a broken queue out of the history'}; @{n = 'pre-commit'; h = '(run by the git hook) check the staged .strom/ files'}; @{n = 'merge-driver'; h = '(run by git) merge one of strom''s files where two lines of history meet'}; @{n = 'claude-stop'; h = '(run by Claude Code''s Stop hook) let the agent stop'}; @{n = 'claude-event'; h = '(run by Claude Code''s hooks) take note of an event'})
		'help session' = @(@{n = 'list'; h = 'the running sessions'}; @{n = 'finish'; h = 'ask a running session to finish: the agent records and closes, then the run ends'}; @{n = 'log'; h = 'a session''s transcript by lines (the last 200 by default)'}; @{n = 'send'; h = 'type text or keys into a running agent'}; @{n = 'stop'; h = 'stop a running session at once: its work is committed, its task back in the queue, the run ends'}; @{n = 'close'; h = '(the agent) end this session; the task stays in the queue unless done or waiting'})
		'help gate' = @(@{n = 'test'; h = 'what the condition would say now; changes nothing'})
		'help usage' = @(@{n = 'report'; h = 'the agent''s own usage report: Claude Code''s statusLine calls it'})
	}
	$valued = @{
		'' = ' '
		'init' = ' --agent '
		'task' = ' '
		'task add' = ' --body --body-file --needs '
		'task list' = ' --page --state '
		'task show' = ' --page '
		'task edit' = ' --body --body-file --needs --title '
		'task move' = ' --before '
		'task park' = ' --why '
		'task unpark' = ' '
		'task answer' = ' '
		'task summary' = ' --file '
		'record' = ' --task '
		'done' = ' '
		'ask' = ' --task '
		'note' = ' --file '
		'config' = ' '
		'config get' = ' '
		'config set' = ' '
		'config unset' = ' '
		'status' = ' '
		'log' = ' -n '
		'report' = ' --since '
		'hooks' = ' '
		'hooks install' = ' '
		'hooks pre-commit' = ' '
		'hooks merge-driver' = ' '
		'hooks claude-stop' = ' '
		'hooks claude-event' = ' '
		'run' = ' --agent --gate --max --minutes --task --until '
		'session' = ' '
		'session list' = ' '
		'session finish' = ' '
		'session log' = ' --limit --offset --wait '
		'session send' = ' '
		'session stop' = ' '
		'session close' = ' '
		'mode' = ' '
		'chat' = ' --agent --minutes --task '
		'gate' = ' '
		'gate test' = ' --gate --now --usage-file '
		'usage' = ' '
		'usage report' = ' --session '
		'allow' = ' '
		'app' = ' --listen --repo '
		'menu' = ' '
		'setup' = ' --new '
		'completion' = ' '
		'version' = ' '
		'demo-agent' = ' --prompt-file '
		'help' = ' '
		'help task' = ' '
		'help config' = ' '
		'help hooks' = ' '
		'help session' = ' '
		'help gate' = ' '
		'help usage' = ' '
	}
	$path = ''
	$prev = ''
	foreach ($element in ($commandAst.CommandElements | Select-Object -Skip 1)) {
		if ($element.Extent.EndOffset -ge $cursorPosition) { break }
		$word = $element.ToString()
		# Words after -- are the agent's.
		if ($word -eq '--') { return }
		$next = if ($path) { "$path $word" } else { $word }
		if ($tree.ContainsKey($next)) { $path = $next }
		$prev = $word
	}
	# The word after a flag that takes a value is that value.
	if ($prev -and $valued[$path].Contains(" $prev ")) { return }
	foreach ($item in $tree[$path]) {
		if ($item.n -like "$wordToComplete*") {
			$tip = if ($item.h) { $item.h } else { $item.n }
			[System.Management.Automation.CompletionResult]::new($item.n, $item.n, 'ParameterValue', $tip)
		}
	}
}
