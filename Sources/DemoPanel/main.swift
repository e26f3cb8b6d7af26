print("demo panel")
