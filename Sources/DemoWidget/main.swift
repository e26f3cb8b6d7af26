print("demo widget")
