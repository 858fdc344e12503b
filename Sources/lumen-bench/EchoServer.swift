import Foundation
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
                    while true {
                        let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
                        if count <= 0 { break }
                        var offset = 0
                        while offset < count {
                            let written = buffer[offset..<count].withUnsafeBytes {
                                write(client, $0.baseAddress, $0.count)
                            }
                            if written <= 0 { break }
                            offset += written
                        }
                    }
                    close(client)
                }.start()
            }
        }.start()
    }
}
