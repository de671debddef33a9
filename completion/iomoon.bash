# bash completion for iomoon(1); `make install` puts it in
# $(PREFIX)/share/bash-completion/completions/iomoon, where bash-completion
# loads it the first time `iomoon` is completed (or: source this file).
#
# The verbs, each verb's options and the report formats are listed here;
# tests/95-install.t checks them against what the binary accepts, so they
# cannot drift apart. The ready suites and the engines come from
# `iomoon list` of the very binary being completed (0.1 s), so they are
# always the installed ones.

_iomoon_verbs="run suite quick ping replay trace report compare rerun verify fio convert list help"
_iomoon_formats="table csv json analyzer markdown html fio-json fio-json+ fio-terse none"
_iomoon_output_opts="--format --output --quiet --metrics --metrics-public --metrics-file --live"
_iomoon_target_opts="--target --size --time --ramp --engine --qd --workers --buffered --allow-write --force"
_iomoon_quick_opts="--bs --read --random --rate --ios --dist --seed --name --batch --rw --iodepth --numjobs --runtime --ioengine"
_iomoon_trace_opts="--trace-format --device --from --to --skip-bad"
_iomoon_replay_opts="--speed --no-stall --offsets --loop --name"
_iomoon_ping_opts="-c -i -w -s -S -o -p -a -L -W -D -C -A -Y -y -R -q -k -B -J --allow-write --force"
# the options that take no value (everything else takes one)
_iomoon_flags="--quiet --metrics-public --buffered --allow-write --force --no-stall --skip-bad --skip-unsupported -L -W -D -C -A -Y -y -R -q -k -B -J"

# The names in one section (engines, suites) of `BIN list`.
_iomoon_list() {
	local bin=$1 section=$2
	[[ $bin == "~"* ]] && bin=$HOME${bin#"~"}
	"$bin" list 2>/dev/null | awk -v s="$section:" '
		/^[^ ]/ { on = ($0 == s); next }
		on && NF { print $1 }'
}

# The options of a verb.
_iomoon_opts() {
	case $1 in
	run) echo "$_iomoon_output_opts" ;;
	suite) echo "$_iomoon_output_opts $_iomoon_target_opts --skip-unsupported --ios --verify-state --manager" ;;
	replay) echo "$_iomoon_output_opts $_iomoon_target_opts $_iomoon_trace_opts $_iomoon_replay_opts" ;;
	trace) echo "$_iomoon_trace_opts --format" ;;
	report) echo "--format --output" ;;
	compare) echo "--format --output --pair --pair-by" ;;
	rerun) echo "$_iomoon_output_opts $_iomoon_target_opts" ;;
	quick) echo "$_iomoon_output_opts $_iomoon_target_opts $_iomoon_quick_opts" ;;
	ping) echo "$_iomoon_ping_opts" ;;
	verify) echo "$_iomoon_output_opts --after-crash --atomic --bs --qd --workers --engine --buffered --name --verify-state --no-state" ;;
	esac
}

# Add file names matching $1 to COMPREPLY (one per line, as compgen gives).
_iomoon_files() {
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	COMPREPLY+=($(compgen -f -- "$1"))
}

# Completes the value of option $1; returns 1 if $1 takes no value.
_iomoon_value() {
	local opt=$1 cur=$2 bin=$3
	case " $_iomoon_flags " in *" $opt "*) return 1 ;; esac
	case $opt in
	--format) COMPREPLY=($(compgen -W "$_iomoon_formats" -- "$cur")) ;;
	--engine) COMPREPLY=($(compgen -W "auto $(_iomoon_list "$bin" engines)" -- "$cur")) ;;
	--target | --output | --metrics-file | --live) _iomoon_files "$cur" ;;
	--pair-by) COMPREPLY=($(compgen -W "name position" -- "$cur")) ;;
	--dist) COMPREPLY=($(compgen -W "uniform zipf: pareto: normal: zoned:" -- "$cur"))
		compopt -o nospace 2>/dev/null ;;
	esac
	return 0 # a value to type (a size, a time, a number): nothing to offer
}

# How many words after the verb, before the one being completed, are
# arguments (not options, nor their values); for run, 1 once the script
# is named (what follows is the script's: iomoon refuses its own options
# there unless after --, so none are offered).
_iomoon_nargs() {
	local verb=$1 i w n=0
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -* ]]; then
			case " $_iomoon_flags " in
			*" $w "*) ;;
			*) [[ ${COMP_WORDS[i + 1]} == "=" ]] && i=$((i + 1))
				i=$((i + 1)) ;;
			esac
		elif [[ $w != "=" ]]; then
			n=$((n + 1))
			[[ $verb == run ]] && break
		fi
	done
	echo $n
}

_iomoon() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local bin=${COMP_WORDS[0]} verb=${COMP_WORDS[1]} opt= nargs
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W "$_iomoon_verbs --version --help" -- "$cur"))
		return
	fi
	nargs=$(_iomoon_nargs "$verb")
	if [[ $verb == run ]] && ((nargs > 0)); then
		_iomoon_files "$cur" # the script's arguments
		return
	fi
	# the option whose value is being completed: --opt VALUE, or --opt=VALUE
	# (which bash splits at '=', as COMP_WORDBREAKS says)
	if [[ $cur == "=" ]]; then
		opt=$prev cur=
	elif [[ $prev == "=" ]] && ((COMP_CWORD > 2)); then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $prev == -* ]]; then
		opt=$prev
	fi
	[[ -n $opt ]] && _iomoon_value "$opt" "$cur" "$bin" && return
	case $verb in
	run)
		if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$(_iomoon_opts run)" -- "$cur"))
		else _iomoon_files "$cur"
		fi ;;
	suite)
		if ((nargs == 0)) && [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -W "$(_iomoon_list "$bin" suites)" -- "$cur"))
			[[ $cur == */* || ${#COMPREPLY[@]} == 0 ]] && _iomoon_files "$cur"
		else
			COMPREPLY=($(compgen -W "$(_iomoon_opts suite)" -- "$cur"))
		fi ;;
	quick)
		COMPREPLY=($(compgen -W "$(_iomoon_opts quick)" -- "$cur")) ;;
	trace)
		if ((nargs == 0)) && [[ $cur != -* ]]; then COMPREPLY=($(compgen -W "profile" -- "$cur"))
		elif [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$(_iomoon_opts trace)" -- "$cur"))
		else _iomoon_files "$cur"
		fi ;;
	replay | report | compare | rerun | fio | convert)
		if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$(_iomoon_opts "$verb")" -- "$cur"))
		else _iomoon_files "$cur"
		fi ;;
	ping)
		if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$(_iomoon_opts ping)" -- "$cur"))
		else _iomoon_files "$cur"
		fi ;;
	esac
}
complete -F _iomoon iomoon
