# bash completion for strom, written by strom completion bash.
_strom() {
	local cur=${COMP_WORDS[COMP_CWORD]} path= word i
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		# Words after -- are the agent's.
		[[ $word == -- ]] && return 0
		case "$path/$word" in
		'/init'|'/task'|'/record'|'/done'|'/ask'|'/note'|'/config'|'/status'|'/log'|'/report'|'/hooks'|'/run'|'/session'|'/mode'|'/chat'|'/gate'|'/usage'|'/allow'|'/app'|'/menu'|'/setup'|'/help'|'/completion'|'/version'|'/demo-agent'|'task/add'|'task/list'|'task/show'|'task/edit'|'task/move'|'task/park'|'task/unpark'|'task/answer'|'task/summary'|'config/get'|'config/set'|'config/unset'|'hooks/install'|'hooks/pre-commit'|'hooks/merge-driver'|'hooks/claude-stop'|'hooks/claude-event'|'session/list'|'session/finish'|'session/log'|'session/send'|'session/stop'|'session/close'|'gate/test'|'usage/report'|'help/init'|'help/task'|'help/record'|'help/done'|'help/ask'|'help/note'|'help/config'|'help/status'|'help/log'|'help/report'|'help/hooks'|'help/run'|'help/session'|'help/mode'|'help/chat'|'help/gate'|'help/usage'|'help/allow'|'help/app'|'help/menu'|'help/setup'|'help/help'|'help/completion'|'help/version'|'help/demo-agent'|'help task/add'|'help task/list'|'help task/show'|'help task/edit'|'help task/move'|'help task/park'|'help task/unpark'|'help task/answer'|'help task/summary'|'help config/get'|'help config/set'|'help config/unset'|'help hooks/install'|'help hooks/pre-commit'|'help hooks/merge-driver'|'help hooks/claude-stop'|'help hooks/claude-event'|'help session/list'|'help session/finish'|'help session/log'|'help session/send'|'help session/stop'|'help session/close'|'help gate/test'|'help usage/report')
			path=${path:+$path }$word ;;
		esac
	done
	local words valued
	case $path in
	'') words='init task record done ask note config status log report hooks run session mode chat gate usage allow app menu setup help completion version demo-agent --version'; valued=' ' ;;
	'init') words='--agent'; valued=' --agent ' ;;
	'task') words='add list show edit move park unpark answer summary --json'; valued=' ' ;;
	'task add') words='--body --body-file --json --needs'; valued=' --body --body-file --needs ' ;;
	'task list') words='--all --json --page --state'; valued=' --page --state ' ;;
	'task show') words='--json --page'; valued=' --page ' ;;
	'task edit') words='--body --body-file --needs --title'; valued=' --body --body-file --needs --title ' ;;
	'task move') words='--before'; valued=' --before ' ;;
	'task park') words='--why'; valued=' --why ' ;;
	'task unpark') words=''; valued=' ' ;;
	'task answer') words=''; valued=' ' ;;
	'task summary') words='--file --json'; valued=' --file ' ;;
	'record') words='--task'; valued=' --task ' ;;
	'done') words=''; valued=' ' ;;
	'ask') words='--task'; valued=' --task ' ;;
	'note') words='--file --json'; valued=' --file ' ;;
	'config') words='get set unset --json'; valued=' ' ;;
	'config get') words='--json'; valued=' ' ;;
	'config set') words='--for-tree'; valued=' ' ;;
	'config unset') words='--for-tree'; valued=' ' ;;
	'status') words='--json'; valued=' ' ;;
	'log') words='--json -n'; valued=' -n ' ;;
	'report') words='--json --since'; valued=' --since ' ;;
	'hooks') words='install pre-commit merge-driver claude-stop claude-event'; valued=' ' ;;
	'hooks install') words=''; valued=' ' ;;
	'hooks pre-commit') words=''; valued=' ' ;;
	'hooks merge-driver') words=''; valued=' ' ;;
	'hooks claude-stop') words=''; valued=' ' ;;
	'hooks claude-event') words=''; valued=' ' ;;
	'run') words='--agent --gate --interactive --loop --max --minutes --no-gate --task --until'; valued=' --agent --gate --max --minutes --task --until ' ;;
	'session') words='list finish log send stop close'; valued=' ' ;;
	'session list') words='--json'; valued=' ' ;;
	'session finish') words=''; valued=' ' ;;
	'session log') words='--limit --offset --wait'; valued=' --limit --offset --wait ' ;;
	'session send') words='--keys --no-enter --paste'; valued=' ' ;;
	'session stop') words=''; valued=' ' ;;
	'session close') words=''; valued=' ' ;;
	'mode') words='--json'; valued=' ' ;;
	'chat') words='--agent --minutes --task'; valued=' --agent --minutes --task ' ;;
	'gate') words='test'; valued=' ' ;;
	'gate test') words='--gate --json --now --usage-file'; valued=' --gate --now --usage-file ' ;;
	'usage') words='report --json'; valued=' ' ;;
	'usage report') words='--session'; valued=' --session ' ;;
	'allow') words='--json --list --revoke'; valued=' ' ;;
	'app') words='--listen --open --repo'; valued=' --listen --repo ' ;;
	'menu') words=''; valued=' ' ;;
	'setup') words='--new'; valued=' --new ' ;;
	'completion') words='bash zsh fish powershell'; valued=' ' ;;
	'version') words=''; valued=' ' ;;
	'demo-agent') words='--prompt-file'; valued=' --prompt-file ' ;;
	'help') words='init task record done ask note config status log report hooks run session mode chat gate usage allow app menu setup help completion version demo-agent'; valued=' ' ;;
	'help task') words='add list show edit move park unpark answer summary'; valued=' ' ;;
	'help config') words='get set unset'; valued=' ' ;;
	'help hooks') words='install pre-commit merge-driver claude-stop claude-event'; valued=' ' ;;
	'help session') words='list finish log send stop close'; valued=' ' ;;
	'help gate') words='test'; valued=' ' ;;
	'help usage') words='report'; valued=' ' ;;
	esac
	# The word after a flag that takes a value is that value: the shell's own
	# completion (-o default) offers files.
	(( COMP_CWORD > 1 )) && [[ $valued == *" ${COMP_WORDS[COMP_CWORD-1]} "* ]] && return 0
	COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _strom strom
