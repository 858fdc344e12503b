#compdef lumend
# zsh completion for lumend, made from its option declarations
_lumend() {
    local -a specs
    specs=(
        --fixture'[Home to simulate (JSON fixture; see lumen-fixture(5))]:value:->value---fixture'
        --state-dir'[Where state is kept (state.json, the snapshot, state.jour...]:value:->value---state-dir'
        --socket'[Socket to listen on (ignored when systemd passes one)]:value:->value---socket'
        --clock'[The simulation clock]:value:->value---clock'
        --seed'[Seed for every random choice (overrides the fixture'\''s)]:value:->value---seed'
        --start'[The date, time and UTC offset the simulated wall clock st...]:value:->value---start'
        --durability'['\''full'\'': a write is confirmed once it is on disk]:value:->value---durability'
        --reset'[Start from the fixture, moving the existing state and jou...]'
        --accept-loss'[Start although the state files show that acknowledged cha...]'
        --simulation-access'[Who may open the simulation scope: root and lumend'\''s user...]:value:->value---simulation-access'
        --request-timeout'[Close a connection that sends no complete request within ...]:value:->value---request-timeout'
        --max-sessions'[Sessions served at once]:value:->value---max-sessions'
        --max-sessions-per-user'[Sessions one user (peer UID) may hold at once, fewer than...]:value:->value---max-sessions-per-user'
        --command-record'[How many of the last commands the simulation scope'\''s comm...]:value:->value---command-record'
        --http'[Listen for HTTP there (127.0.0.1:8080, (::1):8080; port 0...]:value:->value---http'
        --https'[Listen for HTTPS there (0.0.0.0:443, 127.0.0.1:8443; port...]:value:->value---https'
        --tls-certificate'[The certificate HTTPS presents (PEM; the server'\''s first, ...]:value:->value---tls-certificate'
        --tls-key'[The private key of --tls-certificate (PEM, unencrypted); ...]:value:->value---tls-key'
        --mdns'[Announce the Hue bridge by multicast DNS (_hue._tcp, as a...]:value:->value---mdns'
        --http-token-file'[Read the token that opens the simulation scope over HTTP ...]:value:->value---http-token-file'
        --http-host'[Take HTTP requests that name lumend NAME (a DNS name of t...]:value:->value---http-host'
        --lifx'[Answer the LIFX LAN protocol on UDP for the bulbs on the ...]:value:->value---lifx'
        --hue-pairing'[When apps may pair with the Hue bridge: while its link bu...]:value:->value---hue-pairing'
        --hue-users'[The most users the Hue bridge keeps (default 64); pairing...]:value:->value---hue-users'
        --event-loops'[Threads serving the connections]:value:->value---event-loops'
        --log-level'[critical, error, warning, notice, info (default) or debug]:value:->value---log-level'
        --exit-with-parent'[Shut down cleanly, as on SIGTERM, once the process that s...]'
        '(-h --help)'{-h,--help}'[Show this help]'
        --version'[Show the version]'
        --print-socket'[Print the socket path these options resolve to, and exit]'
        --check'[Check a fixture without starting: print each problem with...]:value:->value---check'
        --print-fixture'[Print an embedded fixture (demo-home), to start a fixture...]:value:->value---print-fixture'
        --completion'[Print a completion script for this shell, and exit]:value:->value---completion'
    )
    local state
    _arguments -s $specs && return
    case $state in
        value---fixture) _files ;;
        value---state-dir) _files -/ ;;
        value---socket) _files ;;
        value---clock) compadd -- 'real' 'virtual' 'auto' ;;
        value---seed) _message 'value' ;;
        value---start) _message 'value' ;;
        value---durability) compadd -- 'full' 'relaxed' ;;
        value---simulation-access) compadd -- 'owner' 'any' ;;
        value---request-timeout) _message 'value' ;;
        value---max-sessions) _message 'value' ;;
        value---max-sessions-per-user) _message 'value' ;;
        value---command-record) _message 'value' ;;
        value---http) _message 'value' ;;
        value---https) _message 'value' ;;
        value---tls-certificate) _files ;;
        value---tls-key) _files ;;
        value---mdns) _message 'value' ;;
        value---http-token-file) _files ;;
        value---http-host) _message 'value' ;;
        value---lifx) _message 'value' ;;
        value---hue-pairing) compadd -- 'button' 'open' ;;
        value---hue-users) _message 'value' ;;
        value---event-loops) _message 'value' ;;
        value---log-level) compadd -- 'critical' 'error' 'warning' 'notice' 'info' 'debug' ;;
        value---check) _files ;;
        value---print-fixture) compadd -- 'demo-home' ;;
        value---completion) compadd -- 'bash' 'zsh' 'fish' ;;
    esac
}
_lumend "$@"
