"""Episode files and what plays them: the file format (:mod:`avalon.episodes.episode_file`),
recording and replaying one (:mod:`avalon.episodes.recording`), replaying a folder of them
(:mod:`avalon.episodes.replay_folder`), and the achievements over episodes
(:mod:`avalon.episodes.achievements`)."""
