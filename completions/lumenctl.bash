# bash completion for lumenctl, made from its option declarations
_lumenctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        --socket) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --transition) COMPREPLY=(); return ;;
        --timeout) COMPREPLY=(); return ;;
    esac
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--socket --json --no-legend --transition --timeout -h --help --version' -- "$cur")); return; fi
    local command="" position=0 i word
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            --socket|--transition|--timeout) ((i++)) ;;
            -*) ;;
            *) if [[ -z $command ]]; then command=$word; else ((position++)); fi ;;
        esac
    done
    case $command in
        "") COMPREPLY=($(compgen -W 'status rooms lights get set rename discover watch sim describe call shell completion' -- "$cur")) ;;
        lights)
            case $position in
                0) COMPREPLY=($(compgen -W "$(lumenctl --no-legend rooms 2>/dev/null | awk '{print $1}')" -- "$cur")) ;;
            esac ;;
        get)
            case $position in
                0) COMPREPLY=($(compgen -W "$(lumenctl --no-legend lights 2>/dev/null | awk '{print $1}')" -- "$cur")) ;;
                1) COMPREPLY=($(compgen -W 'name model isOn brightness colorTemperature color isReachable ct xy' -- "$cur")) ;;
            esac ;;
        set)
            case $position in
                0) COMPREPLY=($(compgen -W "$(lumenctl --no-legend lights 2>/dev/null | awk '{print $1; print $2}')" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -W 'on off brightness= ct= xy= color= rgb=' -- "$cur")) ;;
            esac ;;
        rename)
            case $position in
                0) COMPREPLY=($(compgen -W 'home room light' -- "$cur")) ;;
            esac ;;
        discover)
            case $position in
                0) COMPREPLY=($(compgen -W "$(lumenctl --no-legend rooms 2>/dev/null | awk '{print $1}')" -- "$cur")) ;;
            esac ;;
        sim)
            case $position in
                0) COMPREPLY=($(compgen -W 'clock advance settle next log clear-log reset checkpoint restore drop-checkpoint reachable power-cycle device link-button faults add-room add-light remove-room remove-light snapshot' -- "$cur")) ;;
                1) COMPREPLY=($(compgen -W "$(lumenctl --no-legend lights 2>/dev/null | awk '{print $1}')" -- "$cur")) ;;
            esac ;;
        describe)
            case $position in
                0) COMPREPLY=($(compgen -W 'home room light simulation' -- "$cur")) ;;
            esac ;;
        call)
            case $position in
                0) COMPREPLY=($(compgen -W 'hello describe open close get set call subscribe unsubscribe' -- "$cur")) ;;
            esac ;;
        completion)
            case $position in
                0) COMPREPLY=($(compgen -W 'bash zsh fish' -- "$cur")) ;;
            esac ;;
    esac
}
complete -F _lumenctl lumenctl
