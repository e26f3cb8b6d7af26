/// The daemon's wiring: process table, lifecycle, sockets, pressure response.
