# bash completion for lumend, made from its option declarations
_lumend() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        --fixture) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --state-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --socket) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --clock) COMPREPLY=($(compgen -W 'real virtual auto' -- "$cur")); return ;;
        --seed) COMPREPLY=(); return ;;
        --start) COMPREPLY=(); return ;;
        --durability) COMPREPLY=($(compgen -W 'full relaxed' -- "$cur")); return ;;
        --simulation-access) COMPREPLY=($(compgen -W 'owner any' -- "$cur")); return ;;
        --request-timeout) COMPREPLY=(); return ;;
        --max-sessions) COMPREPLY=(); return ;;
        --max-sessions-per-user) COMPREPLY=(); return ;;
        --command-record) COMPREPLY=(); return ;;
        --http) COMPREPLY=(); return ;;
        --https) COMPREPLY=(); return ;;
        --tls-certificate) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --tls-key) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --mdns) COMPREPLY=(); return ;;
        --http-token-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --http-host) COMPREPLY=(); return ;;
        --lifx) COMPREPLY=(); return ;;
        --hue-pairing) COMPREPLY=($(compgen -W 'button open' -- "$cur")); return ;;
        --hue-users) COMPREPLY=(); return ;;
        --event-loops) COMPREPLY=(); return ;;
        --log-level) COMPREPLY=($(compgen -W 'critical error warning notice info debug' -- "$cur")); return ;;
        --check) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --print-fixture) COMPREPLY=($(compgen -W 'demo-home' -- "$cur")); return ;;
        --completion) COMPREPLY=($(compgen -W 'bash zsh fish' -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--fixture --state-dir --socket --clock --seed --start --durability --reset --accept-loss --simulation-access --request-timeout --max-sessions --max-sessions-per-user --command-record --http --https --tls-certificate --tls-key --mdns --http-token-file --http-host --lifx --hue-pairing --hue-users --event-loops --log-level --exit-with-parent -h --help --version --print-socket --check --print-fixture --completion' -- "$cur")); return; fi
    COMPREPLY=()
}
complete -F _lumend lumend
