#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking code (the SDK's runtime loop) on its own POSIX thread, so that the test
/// can play the supervisor meanwhile without tying up Swift's cooperative pool.
struct TestThread {
    private let thread: pthread_t

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    init(_ run: @escaping @Sendable () -> Void) throws {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, body)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            throw PeerError.system("pthread_create", status)
        }
        self.thread = thread
    }

    func join() {
        pthread_join(thread, nil)
    }
}
