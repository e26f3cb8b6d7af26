print("demo app")
