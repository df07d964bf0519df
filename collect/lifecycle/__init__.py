"""A worker's path through a paid study, enforced by the server: outcomes and their codes
(outcomes), presence from heartbeats (presence), and the periodic sweep that ends waits and rooms
nobody ends by hand (sweep)."""
