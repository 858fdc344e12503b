# fish completion for lumenctl, made from its option declarations
complete -c lumenctl -f
complete -c lumenctl -l socket -r -F -d 'lumend'\''s socket'
complete -c lumenctl -l json -d 'One JSON document per result, for scripts'
complete -c lumenctl -l no-legend -d 'Leave out table headers'
complete -c lumenctl -l transition -r -f -d 'Take this long to reach a new brightness or colour (set)'
complete -c lumenctl -l timeout -r -f -d 'Give up when lumend has not finished the command within t...'
complete -c lumenctl -s h -l help -d 'Show help (also after any command)'
complete -c lumenctl -l version -d 'Show the version'
function __lumenctl_position
    set -l words (commandline -opc)
    set -e words[1]
    set -l command ''
    set -l position 0
    set -l skip 0
    for word in $words
        if test $skip = 1
            set skip 0
        else if contains -- $word --socket --transition --timeout
            set skip 1
        else if string match -q -- '-*' $word
        else if test -z "$command"
            set command $word
        else
            set position (math $position + 1)
        end
    end
    echo "$command:$position"
end
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a status -d 'The home at a glance: rooms and lights, on/off, brightness, reachability'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a rooms -d 'List rooms'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a lights -d 'List lights, all or one room'\''s'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a get -d 'Show a light, or one property of it'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a set -d 'Change a light, or every light of a room at once: on, off, brightness=N, ct=N|NK, xy=X,Y, color=#RRGGBB'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a rename -d 'Rename the home, a room or a light'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a discover -d 'Start a discovery scan and show its progress'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a watch -d 'Print changes as they happen (SCOPE: home, room:ID, light:ID; default all)'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a sim -d 'Drive the simulation: the clock, reachability, faults, rooms and lights'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a describe -d 'List every scope type and its connections: kinds, value types, arguments'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a call -d 'Send one raw JSON-RPC request and print the result'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a shell -d 'Run commands one after another on one session, with history'
complete -c lumenctl -n 'test (__lumenctl_position) = :0' -a completion -d 'Print a shell completion script'
complete -c lumenctl -n 'test (__lumenctl_position) = lights:0' -f -a '(lumenctl --no-legend rooms 2>/dev/null | awk '\''{print $1}'\'')'
complete -c lumenctl -n 'test (__lumenctl_position) = get:0' -f -a '(lumenctl --no-legend lights 2>/dev/null | awk '\''{print $1}'\'')'
complete -c lumenctl -n 'test (__lumenctl_position) = get:1' -f -a 'name model isOn brightness colorTemperature color isReachable ct xy'
complete -c lumenctl -n 'test (__lumenctl_position) = set:0' -f -a '(lumenctl --no-legend lights 2>/dev/null | awk '\''{print $1; print $2}'\'')'
complete -c lumenctl -n 'string match -qr '\''^set:([1-9]|[0-9][0-9]+)$'\'' (__lumenctl_position)' -f -a 'on off brightness= ct= xy= color= rgb='
complete -c lumenctl -n 'test (__lumenctl_position) = rename:0' -f -a 'home room light'
complete -c lumenctl -n 'test (__lumenctl_position) = discover:0' -f -a '(lumenctl --no-legend rooms 2>/dev/null | awk '\''{print $1}'\'')'
complete -c lumenctl -n 'test (__lumenctl_position) = sim:0' -f -a 'clock advance settle next log clear-log reset checkpoint restore drop-checkpoint reachable power-cycle device link-button faults add-room add-light remove-room remove-light snapshot'
complete -c lumenctl -n 'test (__lumenctl_position) = sim:1' -f -a '(lumenctl --no-legend lights 2>/dev/null | awk '\''{print $1}'\'')'
complete -c lumenctl -n 'test (__lumenctl_position) = describe:0' -f -a 'home room light simulation'
complete -c lumenctl -n 'test (__lumenctl_position) = call:0' -f -a 'hello describe open close get set call subscribe unsubscribe'
complete -c lumenctl -n 'test (__lumenctl_position) = completion:0' -f -a 'bash zsh fish'
