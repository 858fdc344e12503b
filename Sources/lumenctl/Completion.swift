/// The bash completion script (`lumenctl completion bash`); `completions/lumenctl.bash` is the same text.
enum Completion {
    static let bash = #"""
        # bash completion for lumenctl
        _lumenctl() {
            local cur prev words cword
            _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
            local commands="status rooms lights get set rename discover watch sim call completion"
            local options="--socket --json --no-legend --help"
            if [[ $prev == --socket ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi
            if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$options --transition" -- "$cur")); return; fi
            local command="" i
            for ((i = 1; i < cword; i++)); do
                [[ ${words[i]} != -* && ${words[i-1]} != --socket ]] && { command=${words[i]}; break; }
            done
            case $command in
                "") COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
                get|set|lights|discover)
                    local ids
                    ids=$(lumenctl --no-legend lights 2>/dev/null | awk '{print $1; print $2}' | sort -u)
                    case $command in
                        set) COMPREPLY=($(compgen -W "$ids on off brightness= ct= xy=" -- "$cur")) ;;
                        get) COMPREPLY=($(compgen -W "$ids name model isOn brightness colorTemperature color isReachable" -- "$cur")) ;;
                        *) COMPREPLY=($(compgen -W "$ids" -- "$cur")) ;;
                    esac ;;
                rename) COMPREPLY=($(compgen -W "home room light" -- "$cur")) ;;
                sim) COMPREPLY=($(compgen -W "clock advance reachable power-cycle faults add-room remove-room remove-light snapshot" -- "$cur")) ;;
                call) COMPREPLY=($(compgen -W "hello describe open close get set call subscribe unsubscribe" -- "$cur")) ;;
                completion) COMPREPLY=($(compgen -W "bash" -- "$cur")) ;;
            esac
        }
        complete -F _lumenctl lumenctl
        """#
}
