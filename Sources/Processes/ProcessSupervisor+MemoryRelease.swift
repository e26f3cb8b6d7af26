import EventLoop

extension ProcessSupervisor {
    /// `process_mrelease` of the run's main process on a thread of its own, as lmkd's reaper
    /// thread does it: the call frees the victim's memory in the caller's time, which the
    /// loop would otherwise wait out (bench/README.md, status-load).
    func releaseMemory(of run: ProcessRun) {
        let descriptor = run.process.descriptor
        guard let releases else { return run.memoryReleased(descriptor.releaseMemory()) }
        releases.run({ descriptor.releaseMemory() }) { release in run.memoryReleased(release) }
    }
}
