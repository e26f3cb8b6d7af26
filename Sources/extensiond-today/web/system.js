// The System page: see system.html.
