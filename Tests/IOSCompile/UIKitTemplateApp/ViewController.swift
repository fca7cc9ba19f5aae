// swift-format-ignore-file
//
//  ViewController.swift
//  UIKitTemplateApp
//
//  Created by RichPush on 01/12/2026.
//

import UIKit

class ViewController: UIViewController {

    override func viewDidLoad() {
        super.viewDidLoad()
        // Do any additional setup after loading the view.
    }


}

