#compdef lumenctl
# zsh completion for lumenctl, made from its option declarations
_lumenctl() {
    local -a specs
    specs=(
        --socket'[lumend'\''s socket]:value:->value---socket'
        --json'[One JSON document per result, for scripts]'
        --no-legend'[Leave out table headers]'
        --transition'[Take this long to reach a new brightness or colour (set)]:value:->value---transition'
        --timeout'[Give up when lumend has not finished the command within t...]:value:->value---timeout'
        '(-h --help)'{-h,--help}'[Show help (also after any command)]'
        --version'[Show the version]'
    )
    local state line context
    _arguments -s -C $specs '1:command:->command' '*::argument:->argument' && return
    case $state in
        value---socket) _files ;;
        value---transition) _message 'value' ;;
        value---timeout) _message 'value' ;;
        command)
            local -a commands
            commands=(
                'status:The home at a glance - rooms and lights, on/off, brightness, reachability'
                'rooms:List rooms'
                'lights:List lights, all or one room'\''s'
                'get:Show a light, or one property of it'
                'set:Change a light, or every light of a room at once - on, off, brightness=N, ct=N|NK, xy=X,Y, color=#RRGGBB'
                'rename:Rename the home, a room or a light'
                'discover:Start a discovery scan and show its progress'
                'watch:Print changes as they happen (SCOPE - home, room -ID, light -ID; default all)'
                'sim:Drive the simulation - the clock, reachability, faults, rooms and lights'
                'describe:List every scope type and its connections - kinds, value types, arguments'
                'call:Send one raw JSON-RPC request and print the result'
                'shell:Run commands one after another on one session, with history'
                'completion:Print a shell completion script'
            )
            _describe 'command' commands ;;
        argument)
            local position=$((CURRENT - 2))
            case $words[1] in
                lights)
                    case $position in
                        0) compadd -- ${(f)"$(lumenctl --no-legend rooms 2>/dev/null | awk '{print $1}')"} ;;
                    esac ;;
                get)
                    case $position in
                        0) compadd -- ${(f)"$(lumenctl --no-legend lights 2>/dev/null | awk '{print $1}')"} ;;
                        1) compadd -- 'name' 'model' 'isOn' 'brightness' 'colorTemperature' 'color' 'isReachable' 'ct' 'xy' ;;
                    esac ;;
                set)
                    case $position in
                        0) compadd -- ${(f)"$(lumenctl --no-legend lights 2>/dev/null | awk '{print $1; print $2}')"} ;;
                        *) compadd -- 'on' 'off' 'brightness=' 'ct=' 'xy=' 'color=' 'rgb=' ;;
                    esac ;;
                rename)
                    case $position in
                        0) compadd -- 'home' 'room' 'light' ;;
                    esac ;;
                discover)
                    case $position in
                        0) compadd -- ${(f)"$(lumenctl --no-legend rooms 2>/dev/null | awk '{print $1}')"} ;;
                    esac ;;
                sim)
                    case $position in
                        0) compadd -- 'clock' 'advance' 'settle' 'next' 'log' 'clear-log' 'reset' 'checkpoint' 'restore' 'drop-checkpoint' 'reachable' 'power-cycle' 'device' 'link-button' 'faults' 'add-room' 'add-light' 'remove-room' 'remove-light' 'snapshot' ;;
                        1) compadd -- ${(f)"$(lumenctl --no-legend lights 2>/dev/null | awk '{print $1}')"} ;;
                    esac ;;
                describe)
                    case $position in
                        0) compadd -- 'home' 'room' 'light' 'simulation' ;;
                    esac ;;
                call)
                    case $position in
                        0) compadd -- 'hello' 'describe' 'open' 'close' 'get' 'set' 'call' 'subscribe' 'unsubscribe' ;;
                    esac ;;
                completion)
                    case $position in
                        0) compadd -- 'bash' 'zsh' 'fish' ;;
                    esac ;;
            esac ;;
    esac
}
_lumenctl "$@"
