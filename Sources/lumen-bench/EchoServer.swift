import Foundation
import LumenProtocol
import LumenServer

/// The baseline: echoes each line back, one thread per connection.
enum EchoServer {
    static func start(path: String) {
        let fd = try! UnixSocket.listen(at: path)
        Thread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { continue }
                Thread {
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    while case .moved(let count) = buffer.withUnsafeMutableBytes({
                        UnixSocket.receive(client, into: $0)
                    }) {
                        guard UnixSocket.sendAll(client, Array(buffer[0..<count])) else { break }
                    }
                    UnixSocket.close(client)
                }.start()
            }
        }.start()
    }
}
