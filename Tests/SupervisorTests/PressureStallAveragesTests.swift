import Testing

@testable import Pressure

@Suite struct PressureStallAveragesTests {
    @Test func readsTheKernelsLines() {
        let averages = PressureStallAverages(
            parsing: """
                some avg10=1.25 avg60=0.50 avg300=0.07 total=1131186
                full avg10=0.00 avg60=0.10 avg300=0.05 total=910269

                """)
        #expect(
            averages.averages == [
                "some avg10": 1.25, "some avg60": 0.5, "some avg300": 0.07,
                "full avg10": 0, "full avg60": 0.1, "full avg300": 0.05,
            ])
        #expect(averages.someAverage10 == 1.25)
    }

    @Test(arguments: ["", "garbage", "some avg10=x avg60=nan", "other avg10=1.0", "some =1 avg10"])
    func skipsWhatItDoesNotKnow(text: String) {
        #expect(PressureStallAverages(parsing: text).averages.isEmpty)
    }

    @Test func readsThisMachinesFile() {
        // Every kernel the daemon supports has PSI; the figure is a percentage.
        let average = PressureStallAverages.read(PressureStallAverages.systemFile)?.someAverage10
        #expect(average.map { (0...100).contains($0) } == true)
        #expect(PressureStallAverages.read("/nonexistent/memory.pressure") == nil)
    }
}
