"""GNU Backgammon's adapter (engine ``gnubg``): its stages here, the script gnubg runs in driver/.
May import conformance.engines' adapters, interface, process and conformance.model; driver/ nothing of bgconf."""
