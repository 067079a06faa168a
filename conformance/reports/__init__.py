"""What a run leaves behind: the JSON Lines report and everything drawn from it (JUnit, Markdown,
HTML, badge, matrix site, diff, merge, certificate check, certification table, playout report),
the export of the suite and its release manifests, and a position drawn as an SVG board.

May import the harness, the cases, the engines and the model; never the commands.
"""
