import ProjectDescription

let project = Project(name: "App", targets: [])
